//go:build race

package vmath

// raceEnabled is set when the race detector is on: Put then poisons the buffers
// it takes, so that a use after Put shows in the race-enabled test run.
const raceEnabled = true

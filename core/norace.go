//go:build !race

package core

// raceEnabled is set when the race detector is on (see Tape.enter).
const raceEnabled = false

//go:build !race

package tensor

// raceEnabled is whether the race detector is on (sync.Pool then drops buffers at
// random, so tests of reuse skip).
const raceEnabled = false

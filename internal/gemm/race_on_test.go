//go:build race

package gemm

// raceOn reports that the tests run under the race detector, whose sync.Pool
// drops a random quarter of what it is handed: allocation counts are then not
// those of a normal build.
const raceOn = true

//go:build !race

package gemm

// raceOn reports that the tests run under the race detector (see race_on_test.go).
const raceOn = false

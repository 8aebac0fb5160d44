//go:build !race

package race

// Enabled is false: the program does not run under the race detector.
const Enabled = false

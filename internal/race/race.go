//go:build race

package race

// Enabled is true: the program runs under the race detector.
const Enabled = true

//go:build !linux

package vmath

// threadClock reports ok false: the polling workers' time off their core is
// measured on Linux only (elsewhere only their hand-offs and regions are).
func threadClock() (tid int, cpu int64, ok bool) { return 0, 0, false }

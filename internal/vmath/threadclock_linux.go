//go:build linux

package vmath

import "golang.org/x/sys/unix"

// threadClock returns the calling thread's id and the processor time it has
// used, in nanoseconds (CLOCK_THREAD_CPUTIME_ID), or ok false when the system
// does not say.
func threadClock() (tid int, cpu int64, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, 0, false
	}
	return unix.Gettid(), ts.Nano(), true
}

//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the processor time the process has used so far, user and system, on
// all its threads (getrusage): on a loaded machine, where the wall time also counts
// the waits for a core, it says what the work itself cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

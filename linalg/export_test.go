package linalg

import (
	"syscall"
	"time"
)

// CPUTime returns the process's user + system CPU time (0 where unavailable), for
// the external benchmarks (package linalg_test).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

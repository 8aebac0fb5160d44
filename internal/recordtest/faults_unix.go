//go:build unix

package recordtest

import "syscall"

// minorFaults returns the process's minor page faults so far (getrusage's
// ru_minflt), and ok false when they cannot be read.
func minorFaults() (n int64, ok bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return int64(u.Minflt), true
}

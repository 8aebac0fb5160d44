package recordtest

import "testing"

// ReportFaults reads the process's minor page faults and returns the function
// that reports those since, per iteration, as faults/op; a benchmark defers it
// around its loop. Nothing is reported where the count cannot be read (systems
// without getrusage).
//
// A minor fault is a page the kernel maps in without I/O, as when an output first
// touches memory that the Go runtime had returned to the system (the scavenger's
// MADV_DONTNEED). The count is the process's, so it includes what the runtime's
// background work faults in during the loop. A loop that makes a fresh
// multi-megabyte output per call and drops it shows one to three hundred a call at
// GOMAXPROCS=2 where the same loop at GOMAXPROCS=1, or with its outputs recycled,
// shows next to none (see the README's Performance section).
func ReportFaults(b *testing.B) func() {
	start, ok := minorFaults()
	return func() {
		end, ok2 := minorFaults()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "faults/op")
		}
	}
}

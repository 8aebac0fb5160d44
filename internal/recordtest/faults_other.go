//go:build !unix

package recordtest

// minorFaults reports ok false: the count of minor page faults comes from
// getrusage, which only Unix systems have.
func minorFaults() (n int64, ok bool) { return 0, false }

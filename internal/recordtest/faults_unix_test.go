//go:build unix

package recordtest_test

import (
	"syscall"
	"testing"

	"github.com/chainrules-go/chainrules/internal/recordtest"
)

// TestReportFaultsCountsFreshPages runs a benchmark whose every iteration maps 64
// fresh anonymous pages, writes one byte in each and unmaps them: each write is a
// minor fault, so ReportFaults must report at least 64 faults/op.
func TestReportFaultsCountsFreshPages(t *testing.T) {
	const pages = 64
	size := pages * syscall.Getpagesize()
	var failed error
	r := testing.Benchmark(func(b *testing.B) {
		defer recordtest.ReportFaults(b)()
		for b.Loop() {
			m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
			if err != nil {
				failed = err
				b.SkipNow()
			}
			for i := 0; i < size; i += syscall.Getpagesize() {
				m[i] = 1
			}
			if err := syscall.Munmap(m); err != nil {
				failed = err
				b.SkipNow()
			}
		}
	})
	if failed != nil {
		t.Skipf("anonymous mapping: %v", failed)
	}
	got, ok := r.Extra["faults/op"]
	if !ok {
		t.Fatalf("no faults/op reported: %v", r.Extra)
	}
	t.Logf("faults/op = %v", got)
	if got < pages {
		t.Fatalf("faults/op = %v, want at least %d (one per fresh page written)", got, pages)
	}
}

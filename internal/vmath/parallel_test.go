package vmath

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParallelForCovers(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, tc := range []struct{ n, grain int }{{0, 4}, {1, 4}, {7, 4}, {8, 4}, {9, 4}, {1000, 16}, {1 << 16, 1 << 10}, {5, 0}} {
			hits := make([]int32, tc.n)
			var calls atomic.Int32
			ParallelFor(tc.n, tc.grain, func(lo, hi int) {
				calls.Add(1)
				require.Less(t, lo, hi)
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&hits[i], 1)
				}
			})
			for i, h := range hits {
				require.Equal(t, int32(1), h, "procs %d n %d: element %d", procs, tc.n, i)
			}
			if tc.n < 2*max(tc.grain, 1) || procs == 1 {
				require.LessOrEqual(t, calls.Load(), int32(1), "small work stays in one call")
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestParallelForPanic checks that a panic in a chunk, whichever goroutine runs it,
// comes back on the caller's goroutine, where recover sees it.
func TestParallelForPanic(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	for _, bad := range []int{0, 500, 999} {
		got := func() (r any) {
			defer func() { r = recover() }()
			ParallelFor(1000, 10, func(lo, hi int) {
				if lo <= bad && bad < hi {
					panic("boom")
				}
			})
			return nil
		}()
		require.Equal(t, "boom", got, "panic in the chunk of element %d", bad)
	}
}

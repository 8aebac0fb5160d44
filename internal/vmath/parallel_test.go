package vmath

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// TestParallelForLateWorker checks that ParallelFor returns once every chunk is
// done, without waiting for a worker goroutine that has not started yet (as one
// on a core busy with another process): the workers here start only after
// ParallelFor has returned, so the caller computes every chunk.
func TestParallelForLateWorker(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	release := make(chan struct{})
	var late sync.WaitGroup
	spawn = func(f func()) {
		late.Add(1)
		go func() {
			defer late.Done()
			<-release
			f()
		}()
	}
	defer func() { spawn = func(f func()) { go f() } }()
	returned := make(chan []int32)
	go func() {
		hits := make([]int32, 1000)
		ParallelFor(len(hits), 10, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&hits[i], 1)
			}
		})
		returned <- hits
	}()
	select {
	case hits := <-returned:
		for i, h := range hits {
			require.Equal(t, int32(1), h, "element %d", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ParallelFor waited for a worker goroutine that had not started")
	}
	close(release)
	late.Wait() // the late workers find no chunk left and end
}

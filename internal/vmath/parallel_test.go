package vmath

import (
	"fmt"
	"runtime"
	"slices"
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
	defer SetSpawn(func(f func()) {
		late.Add(1)
		go func() {
			defer late.Done()
			<-release
			f()
		}()
	})()
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

// TestEachOwned checks that EachOwned calls f once for every index, for counts
// of indices below, at and above the number of goroutines; that with workers
// that start late (as on a busy core) the caller takes every share and returns
// without them; that with workers that start at once and indices that wait for
// one another, each goroutine takes the indices of its own share in increasing
// order; and that a panic comes back as Each's does.
func TestEachOwned(t *testing.T) {
	t.Run("covers", func(t *testing.T) {
		for _, workers := range []int{1, 2, 3, 8} {
			for _, n := range []int{0, 1, 2, 3, 7, 64, 1001} {
				hits := make([]int32, n)
				p := EachOwned(n, workers, func(i int) { atomic.AddInt32(&hits[i], 1) })
				require.Nil(t, p)
				for i, h := range hits {
					require.Equal(t, int32(1), h, "workers %d n %d: index %d", workers, n, i)
				}
			}
		}
	})
	t.Run("late workers", func(t *testing.T) {
		release := make(chan struct{})
		var late sync.WaitGroup
		restore := SetSpawn(func(f func()) {
			late.Add(1)
			go func() {
				defer late.Done()
				<-release
				f()
			}()
		})
		defer restore()
		var order []int // the caller's indices, in the order it took them
		require.Nil(t, EachOwned(12, 3, func(i int) { order = append(order, i) }))
		// Its own share first, in order; then share 1 and share 2 from their ends.
		require.Equal(t, []int{0, 1, 2, 3, 7, 6, 5, 4, 11, 10, 9, 8}, order)
		close(release)
		late.Wait()
	})
	t.Run("own shares", func(t *testing.T) {
		old := runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(old)
		defer SetBackoff(false)() // the worker must start, whatever the machine's load
		// Index 0 waits until index 5 has been taken: the caller cannot take the
		// worker's share before the worker starts, and the worker, which takes its
		// own share first, starts with its first index, 5 (with Each it would be 1).
		var mu sync.Mutex
		first := map[string]int{} // goroutine -> the first index it took
		started := make(chan struct{})
		caller := goid()
		require.Nil(t, EachOwned(10, 2, func(i int) {
			g := goid()
			mu.Lock()
			if _, ok := first[g]; !ok {
				first[g] = i
			}
			mu.Unlock()
			if i == 5 {
				close(started)
			}
			if i == 0 {
				<-started
			}
		}))
		require.Len(t, first, 2)
		for g, i := range first {
			if g == caller {
				require.Equal(t, 0, i)
			} else {
				require.Equal(t, 5, i)
			}
		}
	})
	t.Run("panic", func(t *testing.T) {
		p := EachOwned(100, 4, func(i int) {
			if i == 99 {
				panic("boom")
			}
		})
		require.NotNil(t, p)
		require.Equal(t, "boom", p.Value)
	})
}

// goid returns the number of the calling goroutine, from the first line of its
// stack ("goroutine 123 [running]:").
func goid() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	for i := len("goroutine "); i < len(buf); i++ {
		if buf[i] == ' ' {
			return string(buf[len("goroutine "):i])
		}
	}
	return string(buf)
}

// BenchmarkParallelFor times back-to-back regions of ParallelFor whose chunks
// are pure arithmetic (no memory traffic), of about 7 µs, 70 µs and 0.7 ms of one
// core's work each, to see what a region's start and end cost at each size: run
// it with GOMAXPROCS=1 and GOMAXPROCS=2 in the environment (and with another
// process loading one core), not with -cpu 1,2. A benchmark that uses b.Loop
// ramps up in the testing package's first call, which runs before -cpu's value is
// set (golang/go#49980): its first -cpu entry is timed at the GOMAXPROCS left by
// the benchmark before, so "-cpu 1,2" times 2 and 2 (the procs metric, the
// GOMAXPROCS seen in the loop, shows it).
func BenchmarkParallelFor(b *testing.B) {
	const unit = 64 // multiply-adds per index: about 0.07 µs
	out := make([]float64, 1<<14)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := float64(i)
			for range unit {
				x = x*0.999999 + 1e-7
			}
			out[i%len(out)] = x
		}
	}
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("%dunits", n), func(b *testing.B) {
			for b.Loop() {
				ParallelFor(n, 16, body)
			}
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
		})
	}
}

// BenchmarkEachStart times how long a region of Each on two goroutines takes to
// have both running: each of its two indices waits (spinning, up to 1 ms) for the
// other to start, so a region lasts about the delay until the worker runs, and
// p50-ns reports the median (ns/op, a mean, is dominated by the regions in which
// the operating system ran another process on the second core). On the project's
// 2-vCPU VM the median was 69-78 µs with a go statement per worker, busy loop or
// not, against 22 µs for a bare futex wake-up between two C threads on the same
// VM: a region of less one-core work than that got no help from its worker. With
// the worker pool (goPooled), whose idle worker is still polling when the next
// region starts, the median is 2.1 µs (35 µs with the go statement in the same
// interleaved runs, chrt -f 10, load average 12-18). Run it with GOMAXPROCS=2 in
// the environment (see BenchmarkParallelFor).
func BenchmarkEachStart(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs GOMAXPROCS >= 2")
	}
	var started atomic.Int32
	var took []time.Duration
	for b.Loop() {
		started.Store(0)
		t0 := time.Now()
		Each(2, 2, func(int) {
			started.Add(1)
			for started.Load() < 2 && time.Since(t0) < time.Millisecond {
			}
		})
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
}

package vmath

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelFor calls body on disjoint chunks [lo, hi) that cover [0, n). Work of
// fewer than 2*grain elements, or GOMAXPROCS = 1, runs on the calling goroutine in
// one call. Otherwise up to GOMAXPROCS goroutines (the caller among them) take
// chunks of at least grain elements, about four per goroutine, from a shared
// counter as they become free: a goroutine held up on a busy core takes fewer, so
// the loop waits little for it (OpenMP's dynamic schedule). GOMAXPROCS is read at
// each call.
//
// body must not depend on how [0, n) is split (each element's result its own), so
// that results are the same for any GOMAXPROCS. A panic in body, on any goroutine,
// is raised again on the calling goroutine once every chunk has stopped: it never
// crashes the process from a worker.
func ParallelFor(n, grain int, body func(lo, hi int)) {
	grain = max(grain, 1)
	workers := min(runtime.GOMAXPROCS(0), n/grain)
	if workers <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	chunk := max(grain, (n+4*workers-1)/(4*workers))
	chunks := (n + chunk - 1) / chunk
	var (
		next     atomic.Int64
		failed   atomic.Bool
		panicked any
		once     sync.Once
		wg       sync.WaitGroup
	)
	run := func() {
		defer func() {
			if r := recover(); r != nil {
				once.Do(func() { panicked = r })
				failed.Store(true)
			}
		}()
		for !failed.Load() {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			lo := c * chunk
			body(lo, min(lo+chunk, n))
		}
	}
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	}
	run()
	wg.Wait()
	if failed.Load() {
		panic(panicked)
	}
}

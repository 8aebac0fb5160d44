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
// ParallelFor returns when every chunk is done, not when every goroutine it
// started has run: a goroutine that the runtime or the operating system starts
// only after the others have taken all the chunks (its core busy with another
// process) finds none left and ends, without holding up the caller.
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
		done     sync.WaitGroup // one count per chunk
	)
	done.Add(chunks)
	one := func(lo, hi int) {
		defer func() {
			if r := recover(); r != nil {
				once.Do(func() { panicked = r })
				failed.Store(true)
			}
		}()
		body(lo, hi)
	}
	run := func() {
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			if !failed.Load() { // after a panic the chunks left are only counted
				lo := c * chunk
				one(lo, min(lo+chunk, n))
			}
			done.Done()
		}
	}
	for range workers - 1 {
		spawn(run)
	}
	run()
	done.Wait()
	if failed.Load() {
		panic(panicked)
	}
}

// spawn starts f on a new goroutine; tests replace it to start workers late.
var spawn = func(f func()) { go f() }

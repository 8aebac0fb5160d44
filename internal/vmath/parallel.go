package vmath

import (
	"runtime"
	"runtime/debug"
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
	if p := Each(chunks, workers, func(c int) {
		lo := c * chunk
		body(lo, min(lo+chunk, n))
	}); p != nil {
		panic(p.Value)
	}
}

// Panic is a panic of a call of Each's f: its value, whether it happened on the
// calling goroutine, and otherwise the stack of the worker goroutine it happened on.
type Panic struct {
	Value  any
	Caller bool
	Stack  []byte
}

// Each calls f(i) for every i < n on at most workers goroutines, the calling one
// among them: the dynamic schedule of ParallelFor (and of the GEMM's parallel
// driver). The indices go out in increasing order, from a shared counter, to
// whichever goroutine is free, so that one slowed down by a busy core holds up the
// others less. Each returns when every index is done, not when every goroutine it
// started has run: one that starts only after the others have taken all the
// indices finds none left and ends, without holding up the caller.
//
// A panic in f stops the handing out of indices, and Each returns it once the calls
// under way have returned: the calling goroutine's panic if it had one, else the
// first worker's, with its stack. It returns nil when no call panicked.
func Each(n, workers int, f func(i int)) *Panic {
	var (
		next    atomic.Int64
		aborted atomic.Bool
		mu      sync.Mutex
		own     *Panic         // the calling goroutine's panic
		failure *Panic         // the first worker's
		done    sync.WaitGroup // one count per index
	)
	call := func(i int, caller bool) {
		defer func() {
			if r := recover(); r != nil {
				aborted.Store(true)
				mu.Lock()
				switch {
				case caller:
					own = &Panic{Value: r, Caller: true}
				case failure == nil:
					failure = &Panic{Value: r, Stack: debug.Stack()}
				}
				mu.Unlock()
			}
		}()
		f(i)
	}
	work := func(caller bool) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			if !aborted.Load() { // after a panic the indices left are only counted
				call(i, caller)
			}
			done.Done()
		}
	}
	done.Add(max(n, 0))
	for range min(workers, n) - 1 {
		spawn(func() { work(false) })
	}
	work(true)
	done.Wait()
	if own != nil {
		return own
	}
	return failure
}

// SetSpawn replaces how Each starts its worker goroutines, for tests that start
// them late (as on a core busy with another process), and returns the function
// that restores the default.
func SetSpawn(f func(func())) (restore func()) {
	old := spawn
	spawn = f
	return func() { spawn = old }
}

// spawn starts f on a new goroutine; tests replace it to start workers late.
var spawn = func(f func()) { go f() }

package vmath

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
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
	var next atomic.Int64
	r := &runner{f: f}
	var work func(caller bool)
	work = func(caller bool) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			r.run(i, caller)
			// Backing off, the caller starts the helpers once the region has
			// lasted deferSpawn with at least two indices not yet taken.
			if caller && r.deferred > 0 && nanotime()-r.started > int64(deferSpawn) {
				helpers := r.deferred
				r.deferred = 0
				if int(next.Load()) < n-1 && !r.aborted.Load() {
					for range helpers {
						spawn(func() { work(false) })
					}
				}
			}
		}
	}
	r.done.Add(max(n, 0))
	r.left.Store(int64(max(n, 0)))
	want := min(workers, n) - 1
	helpers := Helpers(want)
	for range helpers {
		spawn(func() { work(false) })
	}
	r.start(n, helpers)
	if helpers == 0 && want > 0 {
		r.deferred = want
		r.started = nanotime()
	}
	work(true)
	return r.wait()
}

// deferSpawn is how long a region of Each runs on the calling goroutine alone,
// while the pool backs off (load.go), before the caller starts its helpers for
// the indices left: a short region (most of those of an MLP or a cross-entropy
// gradient, tens to hundreds of microseconds) ends on the caller without a
// hand-off, which on busy cores costs more than it saves, while a long one (a
// batch of attention products, layer_norm's passes over 2048 x 768 values)
// still gets help for most of its length. The indices go out from the same
// counter either way, so the results are the same.
const deferSpawn = 200 * time.Microsecond

// EachOwned is Each with the indices in contiguous shares, one per goroutine (the
// OpenMP static schedule, with stealing): goroutine g (the caller is 0) takes the
// indices of share g, [g n/w, (g+1) n/w) for w = min(workers, n) goroutines, in
// increasing order, and when its share is done it takes those still left in the
// other shares, from their ends. A goroutine held up on a busy core so holds up
// the others no more than with Each (its share is taken from it), while on idle
// cores every call with the same n gives each goroutine the same indices: a
// kernel that streams an operand by index finds its part in the cache of the core
// that read it in the call before (a matrix-vector product whose matrix is too
// large for one core's caches but not for two), where Each hands the indices out
// in whatever order the goroutines come. The panics are Each's.
func EachOwned(n, workers int, f func(i int)) *Panic {
	workers = min(workers, n)
	if workers <= 1 || n >= 1<<31 {
		return Each(n, workers, f)
	}
	// shares[g] holds the bounds lo (low half) and hi (high half) of the indices
	// not yet taken in share g: the owner takes lo, the others hi-1.
	shares := make([]atomic.Uint64, workers)
	for g := range shares {
		shares[g].Store(uint64(g*n/workers) | uint64((g+1)*n/workers)<<32)
	}
	take := func(g int, own bool) int {
		s := &shares[g]
		for {
			v := s.Load()
			lo, hi := v&(1<<32-1), v>>32
			if lo >= hi {
				return -1
			}
			if own {
				if s.CompareAndSwap(v, lo+1|hi<<32) {
					return int(lo)
				}
			} else if s.CompareAndSwap(v, lo|(hi-1)<<32) {
				return int(hi - 1)
			}
		}
	}
	r := &runner{f: f}
	work := func(g int) {
		for i := take(g, true); i >= 0; i = take(g, true) {
			r.run(i, g == 0)
		}
		for d := 1; d < workers; d++ {
			h := (g + d) % workers
			for i := take(h, false); i >= 0; i = take(h, false) {
				r.run(i, g == 0)
			}
		}
	}
	r.done.Add(n)
	r.left.Store(int64(n))
	helpers := Helpers(workers - 1)
	for h := range helpers {
		g := h + 1
		spawn(func() { work(g) })
	}
	r.start(n, helpers)
	work(0)
	return r.wait()
}

// runner calls f for the indices of Each and EachOwned, counts them done and
// keeps their panics.
type runner struct {
	f       func(i int)
	aborted atomic.Bool
	mu      sync.Mutex
	own     *Panic         // the calling goroutine's panic
	failure *Panic         // the first worker's
	done    sync.WaitGroup // one count per index
	left    atomic.Int64   // indices not yet done, counted down after done

	// The region's measure of whether its helpers paid (noteRegion), when it
	// started any: its indices, the calling goroutine's count of them and the
	// nanotime at which it started.
	n, helpers, callerRan int
	started               int64
	// Helpers that Each, backing off, starts only if the region lasts
	// deferSpawn (read and written by the calling goroutine only).
	deferred int
}

// start records the start of the region's work on the calling goroutine.
func (r *runner) start(n, helpers int) {
	r.n, r.helpers = n, helpers
	if helpers > 0 {
		r.started = nanotime()
	}
}

// run calls f(i), unless a call has panicked (then the index is only counted),
// and recovers and records a panic of the call.
func (r *runner) run(i int, caller bool) {
	if caller {
		r.callerRan++
	}
	defer r.left.Add(-1)
	defer r.done.Done()
	if r.aborted.Load() {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			r.aborted.Store(true)
			r.mu.Lock()
			switch {
			case caller:
				r.own = &Panic{Value: v, Caller: true}
			case r.failure == nil:
				r.failure = &Panic{Value: v, Stack: debug.Stack()}
			}
			r.mu.Unlock()
		}
	}()
	r.f(i)
}

// wait waits for every index (spinning a while, then parking) and returns the
// panic to report, if any: the
// calling goroutine's, else the first worker's.
func (r *runner) wait() *Panic {
	var idle int64 // when the calling goroutine found no index left
	if r.helpers > 0 {
		idle = nanotime()
	}
	// The last indices are under way on other goroutines: spin before parking.
	Spin(func() bool { return r.left.Load() <= 0 })
	r.done.Wait()
	if r.helpers > 0 && !r.aborted.Load() {
		noteRegion(r.n, r.callerRan, time.Duration(idle-r.started), time.Duration(nanotime()-idle))
	}
	if r.own != nil {
		return r.own
	}
	return r.failure
}

// SetSpawn replaces how Each starts its worker goroutines, for tests that start
// them late (as on a core busy with another process), and returns the function
// that restores the default. While the replacement is in place the pool never
// backs off (Helpers), so that it is called for every worker whatever the load
// of the machine running the tests.
func SetSpawn(f func(func())) (restore func()) {
	old := spawn
	spawn = f
	restoreMode := setMode(modeNever)
	return func() {
		restoreMode()
		spawn = old
	}
}

// Go starts f on a goroutine of its own the way Each starts its workers (from the
// pool of goPooled), for parallel drivers of their own (the GEMM's
// shared-packing scheme): SetSpawn's replacement starts it late in tests.
func Go(f func()) { spawn(f) }

// spawn starts f on a goroutine of its own (goPooled); tests replace it to start
// workers late.
var spawn = goPooled

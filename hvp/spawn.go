package hvp

import (
	"sync"
	"sync/atomic"
)

// spawn starts f on a goroutine of its own: the workers of an Objective's shards
// and of an Operator's batches. The callers never wait for a worker that has not
// started, only for the work it has taken, so tests replace spawn to start the
// workers late (as on a core busy with another process) or early.
var spawn = func(f func()) { go f() }

// forEachClaimed calls run(w, i) once for each i in [0, n): on the calling
// goroutine (w = 0) and on workers-1 goroutines started with spawn (w = 1, 2,
// ...), each taking the next i from a shared counter when it is free. It returns
// when every run has returned, waiting for the runs under way but never for a
// goroutine that has not started (that one finds no i left and ends). run must
// not panic.
func forEachClaimed(n, workers int, run func(w, i int)) {
	var (
		next atomic.Int64
		done sync.WaitGroup // one count per index
	)
	done.Add(n)
	work := func(w int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			run(w, i)
			done.Done()
		}
	}
	for w := 1; w < workers; w++ {
		spawn(func() { work(w) })
	}
	work(0)
	done.Wait()
}

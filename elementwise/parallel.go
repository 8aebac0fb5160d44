package elementwise

import (
	"runtime"
	"sync"
)

// parallelGrain is the fewest elements worth a goroutine of their own: below it the
// cost of starting and joining one (about a microsecond) is not repaid.
const parallelGrain = 1 << 16

// parallelFor calls body on consecutive chunks [lo, hi) that cover [0, n), in
// parallel on up to GOMAXPROCS goroutines when n is large (as PyTorch does for
// elementwise kernels), and on the calling goroutine otherwise. Chunks are disjoint,
// so elementwise results do not depend on the split.
func parallelFor(n int, body func(lo, hi int)) {
	workers := parallelWorkers(n)
	if workers <= 1 {
		body(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, min(lo+chunk, n))
		}()
	}
	body(0, min(chunk, n))
	wg.Wait()
}

// parallelWorkers is the number of goroutines parallelFor uses for n elements.
func parallelWorkers(n int) int { return min(runtime.GOMAXPROCS(0), n/parallelGrain) }

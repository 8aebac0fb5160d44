package elementwise

import (
	"runtime"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// parallelGrain is the fewest elements worth a goroutine of their own: below it the
// cost of starting and joining one (about a microsecond) is not repaid.
const parallelGrain = 1 << 16

// parallelFor calls body on disjoint chunks [lo, hi) that cover [0, n), in
// parallel on up to GOMAXPROCS goroutines when n is large (as PyTorch does for
// elementwise kernels), chunks taken as goroutines become free, and on the calling
// goroutine otherwise (vmath.ParallelFor). Elementwise results do not depend on the
// split, and a panic in body (a user's function) comes back on the caller.
func parallelFor(n int, body func(lo, hi int)) { vmath.ParallelFor(n, parallelGrain, body) }

// parallelWorkers is the number of goroutines parallelFor uses for n elements.
func parallelWorkers(n int) int { return min(runtime.GOMAXPROCS(0), n/parallelGrain) }

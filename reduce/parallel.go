package reduce

import (
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// parallelGrain is the fewest input elements worth a goroutine of their own in a
// reduction kernel: below it the cost of starting and joining one (about a
// microsecond, more when the runtime must wake an idle thread) is not repaid.
// It is elementwise's threshold, for the same reason.
const parallelGrain = 1 << 16

// forLanes calls body(lo, hi) on disjoint ranges of the lanes [0, l.Count()) of a
// layout whose lanes are contiguous (Inner 1), on the calling goroutine when the
// input is below 2*parallelGrain elements or GOMAXPROCS is 1, and otherwise on up
// to GOMAXPROCS goroutines taking ranges of at least parallelGrain elements as
// they become free (vmath.ParallelFor). Each lane is computed whole by one call
// of body, in the same order of operations as on one goroutine, so that results
// do not depend on the split or on GOMAXPROCS.
func forLanes(l opkit.Lanes, body func(lo, hi int)) {
	vmath.ParallelFor(l.Count(), max(1, parallelGrain/max(l.Len, 1)), body)
}

// forColumns calls body(lo, hi) on disjoint ranges of the columns [0, l.Inner)
// of a layout with Inner > 1, split as forLanes splits lanes (a column of an
// [Outer, Len, Inner] block holds Outer*Len elements). A kernel that sweeps the
// rows (i, k, lo..hi-1) in the order Rows visits them computes every output
// element with the same operations in the same order as over the whole rows.
func forColumns(l opkit.Lanes, body func(lo, hi int)) {
	vmath.ParallelFor(l.Inner, max(1, parallelGrain/max(l.Outer*l.Len, 1)), body)
}

package tensor

import "github.com/chainrules-go/chainrules/internal/sumhint"

// dropSumHints forgets the sums recorded for d's storage (internal/sumhint: the
// sum of a cotangent, carried from the pullback that made it to the one that
// reduces it), which the caller is about to write in place or hand to the pool.
func dropSumHints(d *Dense) {
	sumhint.Drop(d.data.ptr, uintptr(d.data.cap*elemSize(d.dtype)))
}

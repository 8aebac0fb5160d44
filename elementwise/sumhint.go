package elementwise

import (
	"slices"

	"github.com/chainrules-go/chainrules/internal/sumhint"
	"github.com/chainrules-go/chainrules/tensor"
)

// sumHintMin is the length from which exp's pullback of a uniform cotangent
// leaves the sum of its result for the difference before it (leaveSum).
const sumHintMin = 256

// leaveSum records that the elements of the fresh float64 cotangent xbar sum to
// s, in vmath.Sum's order (internal/sumhint), when it is long enough: the
// pullback of a difference x - a with a broadcast a (the x - max x of a
// log-sum-exp) then takes a's cotangent from it (takeSum) instead of a pass over
// xbar.
func leaveSum(xbar *tensor.Dense, s float64) {
	if xbar == nil || xbar.Size() < sumHintMin || xbar.DType() != tensor.Float64 || !xbar.IsContiguous() {
		return
	}
	d := xbar.Float64s()
	sumhint.Set(xbar, &d[0], len(d), s)
}

// takeSum returns SumTo(g, shape) for a shape of one element from the sum
// recorded for g (leaveSum), if there is one: the tensor of that shape holding
// 0 + s, as SumTo adds g's sum (vmath.Sum) into a zero, bit for bit.
func takeSum(g *tensor.Dense, shape []int) (*tensor.Dense, bool) {
	if g.Size() < sumHintMin || g.DType() != tensor.Float64 || !g.IsContiguous() {
		return nil, false
	}
	one := 1
	for _, d := range shape {
		one *= d
	}
	if one != 1 || len(shape) > g.Rank() {
		return nil, false
	}
	d := g.Float64s()
	s, ok := sumhint.Take(g, &d[0], len(d))
	if !ok {
		return nil, false
	}
	var z float64
	z += s
	out, err := tensor.FromFloat64([]float64{z}, slices.Clone(shape)...)
	return out, err == nil
}

package writingops

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// CumsumOp returns the op y_i = sum_{j <= i} x_j along axis of a float64 tensor, with
// the pullback xbar_j = sum_{i >= j} ybar_i: the cumulative sum of ybar taken from the
// end, flip(cumsum(flip(ybar))).
func CumsumOp(axis int) cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "cumsum", Space: tensor.Space{}, Arity: 1,
		Primal: func(x []*tensor.Dense) (*tensor.Dense, error) {
			sh := x[0].Shape()
			if axis < 0 || axis >= len(sh) || x[0].DType() != tensor.Float64 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "cumsum: axis %d of a %d-d %v tensor", axis, len(sh), x[0].DType())
			}
			y := x[0].Clone()
			d, n, inner := y.Float64s(), sh[axis], 1
			for _, m := range sh[axis+1:] {
				inner *= m
			}
			for o := 0; o+n*inner <= len(d) && n*inner > 0; o += n * inner {
				for i := o + inner; i < o+n*inner; i++ {
					d[i] += d[i-inner]
				}
			}
			return y, nil
		},
		Pullback: func(t *Tape, x []cr.NodeID, y, ybar cr.NodeID) []cr.NodeID {
			flip := index.FlipOp(axis)
			return []cr.NodeID{t.Apply(flip, t.Apply(CumsumOp(axis), t.Apply(flip, ybar)))}
		}})
}

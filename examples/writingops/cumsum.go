package writingops

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// CumsumOp returns the op y_i = sum_{j <= i} x_j along axis of a float64 tensor
// (negative axes count from the end), with
// the pullback xbar_j = sum_{i >= j} ybar_i: the cumulative sum of ybar taken from the
// end, flip(cumsum(flip(ybar))).
func CumsumOp(axis int) cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "cumsum", Space: tensor.Space{}, Arity: 1,
		Primal: func(x []*tensor.Dense) (*tensor.Dense, error) {
			lanes, err := tensor.LanesOf(x[0].Shape(), axis)
			if err != nil || x[0].DType() != tensor.Float64 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "cumsum: axis %d of a %v tensor %v", axis, x[0].DType(), x[0].Shape())
			}
			y := x[0].Clone()
			d := y.Float64s()
			for _, l := range lanes.All() {
				for k := 1; k < l.Len; k++ {
					d[l.At(k)] += d[l.At(k-1)]
				}
			}
			return y, nil
		},
		Pullback: func(t *Tape, x []cr.NodeID, y, ybar cr.NodeID) []cr.NodeID {
			flip := index.FlipOp(axis)
			return []cr.NodeID{t.Apply(flip, t.Apply(CumsumOp(axis), t.Apply(flip, ybar)))}
		}})
}

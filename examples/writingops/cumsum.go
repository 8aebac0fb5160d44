package writingops

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// CumsumOp returns the op y_i = sum_{j <= i} x_j along axis of a float64 or complex128 tensor
// (negative axes count from the end), with the pullback xbar_j = sum_{i >= j} ybar_i:
// the cumulative sum of ybar taken from the end, flip(cumsum(flip(ybar))), written
// with this op itself and index.FlipOp. The primal is package nn's kernel, as
// PyTorch's version takes torch.cumsum: any Go function will do, since only the
// pullback has to be written with ops (a loop over opkit.LanesOf(shape,
// axis).All() computes the same sums).
func CumsumOp(axis int) cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "cumsum", Space: tensor.Space{}, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			y, err := nn.Cumsum(x[0], axis)
			return []*tensor.Dense{y}, err
		},
		Pullback: func(t *hvp.Tape, _, _, ybar []cr.NodeID) []cr.NodeID {
			flip := index.FlipOp(axis)
			return []cr.NodeID{t.Apply(flip, t.Apply(CumsumOp(axis), t.Apply(flip, ybar[0])))}
		}})
}

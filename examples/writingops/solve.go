package writingops

import (
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// SolveOp returns the op x = A^-1 B for a square float64 matrix A and a matrix B,
// with the pullback
//
//	Bbar = A^-T xbar,   Abar = -Bbar x^T.
func SolveOp() cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "solve", Space: tensor.Space{}, Arity: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			a, err := x[0].ToMat()
			if err != nil {
				return nil, err
			}
			b, err := x[1].ToMat()
			if err != nil {
				return nil, err
			}
			if n, m := a.Dims(); n != m || b.RawMatrix().Rows != n {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "solve: A is %dx%d, B has %d rows", n, m, b.RawMatrix().Rows)
			}
			var s mat.Dense
			if err := s.Solve(a, b); err != nil {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "solve: %v", err)
			}
			return []*tensor.Dense{tensor.FromMat(&s)}, nil
		},
		Pullback: func(t *hvp.Tape, x, y, ybar []cr.NodeID) []cr.NodeID {
			bbar := t.Apply(SolveOp(), t.Apply(permute.TransposeOp(0, 1), x[0]), ybar[0]) // A^-T xbar
			return []cr.NodeID{t.Apply(elementwise.NegOp, t.Apply(einsum.Op("ik,jk->ij"), bbar, y[0])), bbar}
		}})
}

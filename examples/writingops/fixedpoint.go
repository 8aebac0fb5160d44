package writingops

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// FixedPointOp returns the op y = f(W, x) defined implicitly as the fixed point
//
//	y = tanh(W y + x)
//
// of a float64 matrix W [n, n] and a column x [n, 1] (a deep-equilibrium layer). The
// primal finds y by iterating the map from y = 0, which converges when the map is a
// contraction (for instance when W's norm is below 1); it does not record the
// iterations, and the derivatives do not go through them. The pullback comes from
// the implicit function theorem instead: with D = diag(1 - y²), the derivative of
// tanh at the fixed point, differentiating the equation gives
//
//	(I - D W) ydot = D (Wdot y + xdot),
//
// so the cotangents solve the adjoint linear system once,
//
//	(I - W^T D) u = ybar,   xbar = D u,   Wbar = (D u) y^T,
//
// recorded with SolveOp, einsum and elementwise ops. The system is linear in ybar,
// so the engine derives the forward tangent by transposing it, and the second-order
// rule (through SolveOp's own, and through D's dependence on y) by a forward sweep.
// A map that does not converge in 10,000 iterations is an error wrapping
// chainrules.ErrInvalidArgument.
func FixedPointOp() cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "tanh_fixed_point", Space: tensor.Space{}, Arity: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			w, b := x[0], x[1]
			if w.Rank() != 2 || b.Rank() != 2 || w.Shape()[0] != w.Shape()[1] || b.Shape()[0] != w.Shape()[0] || b.Shape()[1] != 1 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "tanh_fixed_point: W is %v, x is %v, want [n n] and [n 1]", w.Shape(), b.Shape())
			}
			if w.DType() != tensor.Float64 || b.DType() != tensor.Float64 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "tanh_fixed_point: float64 only")
			}
			n, wd, bd := w.Shape()[0], w.Contiguous().Float64s(), b.Contiguous().Float64s()
			y, next := make([]float64, n), make([]float64, n)
			for range 10000 {
				step := 0.0
				for i := range n {
					s := bd[i]
					for j := range n {
						s += wd[i*n+j] * y[j]
					}
					next[i] = math.Tanh(s)
					step = max(step, math.Abs(next[i]-y[i]))
				}
				y, next = next, y
				if step <= 1e-15 {
					v, err := tensor.FromFloat64(y, n, 1)
					return []*tensor.Dense{v}, err
				}
			}
			return nil, cr.Errorf(cr.ErrInvalidArgument, "tanh_fixed_point: the iteration did not converge (is W's norm below 1?)")
		},
		Pullback: func(t *hvp.Tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			yv, err := t.Value(y)
			if err != nil {
				return []cr.NodeID{0, 0}
			}
			n := yv.Shape()[0]
			eye := tensor.New(tensor.Float64, n, n)
			for i := range n {
				eye.Float64s()[i*n+i] = 1
			}
			d := t.Apply(elementwise.SubOp, t.Constant(tensor.Ones(tensor.Float64, n, 1)), t.Apply(elementwise.SquareOp, y))
			a := t.Apply(elementwise.SubOp, t.Constant(eye), t.Apply(einsum.Op("ji,jk->ij"), x[0], d)) // I - W^T D
			g := t.Apply(elementwise.MulOp, d, t.Apply(SolveOp(), a, ybar))                            // D u
			return []cr.NodeID{t.Apply(einsum.Op("ik,jk->ij"), g, y), g}
		}})
}

package recordtest

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// DotOp returns the test op s = sum_k Re<u_k, x_k> of inputs x_k shaped like the
// u_k. It is linear, so chainrules.LinearRule gives it every order.
func DotOp(u ...*tensor.Dense) cr.Op[*tensor.Dense] { return dotOp{u} }

type dotOp struct{ u []*tensor.Dense }

func (dotOp) Name() string    { return "test_dot" }
func (dotOp) NumOutputs() int { return 1 }

func (o dotOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	eval := func(xs []*tensor.Dense, ok []bool) (*tensor.Dense, error) {
		s := 0.0
		for k, v := range xs {
			if ok != nil && !ok[k] {
				continue
			}
			d, err := tensor.Space{}.Inner(o.u[k], v)
			if err != nil {
				return nil, err
			}
			s += d
		}
		return tensor.Scalar(s), nil
	}
	v, err := eval(x, nil)
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.LinearRule(in, nil, eval, func(k int, g *tensor.Dense) (*tensor.Dense, error) {
		return tensor.Scale(o.u[k], g.AtFloat64()), nil
	}), nil
}

// QuadOp returns the test op s = sum_j Re<w_j, y_j> + |y_j|^2 / 2, defined with its
// pullback ybar_j = sbar (w_j + y_j) recorded by einsum and accumulate ops (so it
// has every order): as the scalar on the outputs of an op, it makes the cotangent
// that reaches them depend on the leaves.
func QuadOp(w []*tensor.Dense) cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "test_quad", Space: tensor.Space{}, Arity: len(w),
		Primal: func(y []*tensor.Dense) ([]*tensor.Dense, error) {
			s := 0.0
			for j, v := range y {
				a, err := tensor.Space{}.Inner(w[j], v)
				if err != nil {
					return nil, err
				}
				s += a + SquaredNorm(v)/2
			}
			return []*tensor.Dense{tensor.Scalar(s)}, nil
		},
		Pullback: func(t *core.Tape[*tensor.Dense], y, _, sbar []cr.NodeID) []cr.NodeID {
			out := make([]cr.NodeID, len(y))
			for j := range y {
				wy := t.Apply(cr.AddOp[*tensor.Dense](tensor.Space{}), y[j], t.Constant(w[j]))
				out[j] = t.Apply(einsum.Op(",...->..."), sbar[0], wy)
			}
			return out
		}})
}

package permute

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// AdjointOp is the op of PyTorch's torch.adjoint(x) (x.mH): the conjugate transpose
// of each matrix of x [..., n, m], which swaps the last two axes and conjugates,
//
//	y[..., j, i] = conj(x[..., i, j])     (y [..., m, n]).
//
// For float64 x it is the transpose, a view of x; for complex128 x a fresh tensor.
// The map is linear over the reals and its own adjoint under Re<a, b>
// (Re<A^H, B> = Re<A, B^H>), so xbar = adjoint(ybar) and ydot = adjoint(xdot)
// (chainrules.UnaryLinearRule), and derivatives of every order follow. An x of rank
// below 2 is an error wrapping chainrules.ErrInvalidArgument.
var AdjointOp cr.Op[*tensor.Dense] = &op{name: "adjoint", plan: func(shape []int) (layout, error) {
	r := len(shape)
	if r < 2 {
		return layout{}, cr.Errorf(cr.ErrInvalidArgument, "adjoint: input of rank %d (shape %v): need a matrix or a batch of matrices", r, shape)
	}
	f := func(t *tensor.Dense) (*tensor.Dense, error) {
		v, err := t.Transpose(r-2, r-1)
		if err != nil {
			return nil, err
		}
		if v.DType() == tensor.Complex128 {
			return v.Conj(), nil
		}
		return v, nil
	}
	return layout{fwd: f, adj: f}, nil
}}

// Adjoint is AdjointOp without a tape: the conjugate transpose of the last two axes.
func Adjoint(x *tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(AdjointOp, x)
}

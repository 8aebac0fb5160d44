package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// LinearOp returns PyTorch's F.linear, the affine map of a fully connected layer,
//
//	y[..., o] = sum_i x[..., i] W[o, i] + b[o]        (y = x W^T + b)
//
// with x of shape [..., in] (any number of leading axes, or none), W of shape
// [out, in] and, when bias is true, b of shape [out] as a third input; y has
// shape [..., out]. The op records the einsum "...i,oi->...o" (one matrix
// product, with GEMM, of the flattened leading axes by W^T) and a broadcast add,
// so its rules are theirs: xbar = ybar W, Wbar = ybar^T x summed over the leading
// axes, bbar = ybar summed over them; ydot = xdot W^T + x Wdot^T + bdot; and
// derivatives of every order. It shows as one node named "linear". float32
// operands stay in single precision through einsum's and add's single-precision
// paths (the matrix product on the float32 GEMM where einsum has it). Complex
// operands, an x without axes, in-features that differ, or a bias not of
// shape [out] are an error wrapping chainrules.ErrShapeMismatch or
// ErrInvalidArgument.
func LinearOp(bias bool) cr.Op[*tensor.Dense] {
	arity := 2
	if bias {
		arity = 3
	}
	body := func(t *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
		y := t.Apply(einsum.Op("...i,oi->...o"), in[0], in[1])
		if bias {
			y = t.Apply(elementwise.AddOp, y, in[2])
		}
		return []cr.NodeID{y}
	}
	return checkedOp{
		Op:     core.Composite("linear", tensor.Space{}, arity, body),
		check:  func(x []*tensor.Dense) error { return checkLinear(x, arity) },
		native: true, // einsum and add take single precision themselves
	}
}

// Linear evaluates F.linear(x, W, b) without a tape; b may be nil.
func Linear(x, w, b *tensor.Dense) (*tensor.Dense, error) {
	if b == nil {
		return cr.Eval(LinearOp(false), x, w)
	}
	return cr.Eval(LinearOp(true), x, w, b)
}

func checkLinear(x []*tensor.Dense, arity int) error {
	const name = "linear"
	if err := checkInputs(name, x, arity); err != nil {
		return err
	}
	if err := checkReal(name, x...); err != nil {
		return err
	}
	in, w := x[0], x[1]
	if in.Rank() == 0 || w.Rank() != 2 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: input %s and weight %s; want input [..., in] and weight [out, in]", name, in.Describe(), w.Describe())
	}
	if k := in.Shape()[in.Rank()-1]; k != w.Shape()[1] {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: input has %d features (%s), weight %s takes %d", name, k, in.Describe(), w.Describe(), w.Shape()[1])
	}
	if arity == 3 {
		if b := x[2]; b.Rank() != 1 || b.Shape()[0] != w.Shape()[0] {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: bias is %s; want [%d] for weight %s", name, b.Describe(), w.Shape()[0], w.Describe())
		}
	}
	return nil
}

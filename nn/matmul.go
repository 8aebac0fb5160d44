package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// MatmulOp is PyTorch's matmul (Python's a @ b) of two float64 or complex128
// tensors, as the einsum its ranks call for:
//
//	1-D @ 1-D   "i,i->"              the inner product (no conjugation), a scalar
//	2-D @ 2-D   "ij,jk->ik"          the matrix product
//	1-D @ N-D   "j,...jk->...k"      a is a row vector, the prepended axis removed
//	N-D @ 1-D   "...ij,j->...i"      b is a column vector, the appended axis removed
//	N-D @ M-D   "...ij,...jk->...ik" a batch of products whose batch axes (all but
//	                                  the last two) broadcast, NumPy's rules
//
// The op is a shorthand: its rules are einsum's (einsum.Op), so that
// abar = ybar conj(b)^T and bbar = conj(a)^T ybar, summed over the batch axes that
// were broadcast, the tangent is adot b + a bdot, and the second-order rule is the
// product rule; recorded, it shows as one node named "matmul". A 0-D operand,
// contracted dims that differ or batch axes that do not broadcast are an error
// wrapping chainrules.ErrInvalidArgument or ErrShapeMismatch.
var MatmulOp cr.Op[*tensor.Dense] = matmulOp{}

// Matmul evaluates MatmulOp at (a, b) without a tape.
func Matmul(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MatmulOp, a, b) }

type matmulOp struct{}

func (matmulOp) Name() string { return "matmul" }

// NumOutputs returns 1.
func (matmulOp) NumOutputs() int { return 1 }

// Apply records the einsum of the operands' ranks under the name matmul.
func (o matmulOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, out, nil)
}

// ApplyMasked passes need on to einsum, which then skips the contractions of the
// operands that need no cotangent.
func (matmulOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	spec, err := matmulSpec(x)
	if err != nil {
		return nil, err
	}
	op := einsum.Op(spec)
	if need == nil {
		return op.Apply(in, x, out)
	}
	return op.(cr.MaskedOp[*tensor.Dense]).ApplyMasked(in, x, out, need)
}

// matmulSpec returns the einsum spec of a @ b, or an error for operands that
// matmul does not take.
func matmulSpec(x []*tensor.Dense) (string, error) {
	const name = "matmul"
	if err := checkInputs(name, x, 2); err != nil {
		return "", err
	}
	a, b := x[0], x[1]
	ra, rb := a.Rank(), b.Rank()
	if ra == 0 || rb == 0 {
		return "", cr.Errorf(cr.ErrInvalidArgument, "%s: operands are %s and %s; both need at least one axis", name, a.Describe(), b.Describe())
	}
	// The contracted dims: a's last, and b's only or second to last.
	ka, kb := a.Shape()[ra-1], b.Shape()[max(0, rb-2)]
	if ka != kb {
		return "", cr.Errorf(cr.ErrShapeMismatch, "%s: %s @ %s contracts %d with %d", name, a.Describe(), b.Describe(), ka, kb)
	}
	switch {
	case ra == 1 && rb == 1:
		return "i,i->", nil
	case ra == 2 && rb == 2:
		return "ij,jk->ik", nil
	case ra == 1:
		return "j,...jk->...k", nil
	case rb == 1:
		return "...ij,j->...i", nil
	}
	ba, bb := a.Shape()[:ra-2], b.Shape()[:rb-2]
	if _, err := tensor.BroadcastShapes(ba, bb); err != nil {
		return "", cr.Errorf(cr.ErrShapeMismatch, "%s: batch axes %v and %v do not broadcast", name, ba, bb)
	}
	return "...ij,...jk->...ik", nil
}

package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// checkedOp is an op defined by another (a composite, usually) whose inputs are
// checked first, so that bad shapes give an error naming the op and the sizes
// rather than the inner op that would trip on them (a nil check checks nothing).
// It takes single precision for the inner op (applySingle) unless native is set.
type checkedOp struct {
	cr.Op[*tensor.Dense]
	check func(x []*tensor.Dense) error
	// native is set when the inner op takes single precision itself (a
	// composite of ops that do, such as linear's einsum, which multiplies
	// float32 matrices with the single-precision GEMM).
	native bool
}

// Differentiable reports the inner op's differentiable inputs.
func (o checkedOp) Differentiable(k int) bool { return cr.IsDifferentiable(o.Op, k) }

// OutputDifferentiable reports the inner op's differentiable outputs.
func (o checkedOp) OutputDifferentiable(j int) bool { return cr.IsOutputDifferentiable(o.Op, j) }

// Apply checks x, then applies the inner op.
func (o checkedOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, y, nil)
}

// ApplyMasked checks x, then passes need on when the inner op takes it. Single
// precision runs the checked op in double precision (applySingle), so that the
// inner op is applied once and its result rounded once.
func (o checkedOp) ApplyMasked(in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if !o.native && opkit.HasSingle(x) {
		return applySingle(o, in, x, y, need)
	}
	if o.check != nil {
		if err := o.check(x); err != nil {
			return nil, err
		}
	}
	if m, ok := o.Op.(cr.MaskedOp[*tensor.Dense]); ok && need != nil {
		return m.ApplyMasked(in, x, y, need)
	}
	return o.Op.Apply(in, x, y)
}

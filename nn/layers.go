package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// checkedOp is an op defined by another (a composite, usually) whose inputs are
// checked first, so that bad shapes give an error naming the op and the sizes
// rather than the inner op that would trip on them.
type checkedOp struct {
	cr.Op[*tensor.Dense]
	check func(x []*tensor.Dense) error
}

// Apply checks x, then applies the inner op.
func (o checkedOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if err := o.check(x); err != nil {
		return nil, err
	}
	if err := opkit.CheckDTypes(o.Name(), x); err != nil {
		return nil, err
	}
	return o.Op.Apply(in, x, y)
}

// ApplyMasked checks x, then passes need on when the inner op takes it.
func (o checkedOp) ApplyMasked(in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if err := o.check(x); err != nil {
		return nil, err
	}
	if err := opkit.CheckDTypes(o.Name(), x); err != nil {
		return nil, err
	}
	if m, ok := o.Op.(cr.MaskedOp[*tensor.Dense]); ok && need != nil {
		return m.ApplyMasked(in, x, y, need)
	}
	return o.Op.Apply(in, x, y)
}

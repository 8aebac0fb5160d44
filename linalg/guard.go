package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// checked returns op with check run on the input values before it is applied, so
// that a composite body can assume valid shapes and an invalid input is an error
// naming the op rather than an error of an inner op.
func checked(op cr.Op[*tensor.Dense], check func(x []*tensor.Dense) error) cr.Op[*tensor.Dense] {
	return checkedOp{op: op, check: check}
}

type checkedOp struct {
	op    cr.Op[*tensor.Dense]
	check func(x []*tensor.Dense) error
}

func (o checkedOp) Name() string { return o.op.Name() }

func (o checkedOp) Differentiable(k int) bool { return cr.IsDifferentiable(o.op, k) }

func (o checkedOp) Apply(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, nil)
}

func (o checkedOp) ApplyMasked(in []cr.NodeID, x []*tensor.Dense, need []bool) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	if err := o.check(x); err != nil {
		return nil, nil, err
	}
	if m, ok := o.op.(cr.MaskedOp[*tensor.Dense]); ok && need != nil {
		return m.ApplyMasked(in, x, need)
	}
	return o.op.Apply(in, x)
}

// checkedMulti is checked for a multi-output op.
func checkedMulti(op cr.MultiOp[*tensor.Dense], check func(x []*tensor.Dense) error) cr.MultiOp[*tensor.Dense] {
	return checkedMultiOp{op: op, check: check}
}

type checkedMultiOp struct {
	op    cr.MultiOp[*tensor.Dense]
	check func(x []*tensor.Dense) error
}

func (o checkedMultiOp) Name() string    { return o.op.Name() }
func (o checkedMultiOp) NumOutputs() int { return o.op.NumOutputs() }
func (o checkedMultiOp) OutputDifferentiable(m int) bool {
	return cr.IsOutputDifferentiable(o.op, m)
}

func (o checkedMultiOp) ApplyMulti(in []cr.NodeID, x []*tensor.Dense) ([]*tensor.Dense, cr.MultiRule[*tensor.Dense], error) {
	if err := o.check(x); err != nil {
		return nil, nil, err
	}
	return o.op.ApplyMulti(in, x)
}

// checkArity returns an error unless there are n inputs, none nil.
func checkInputs(op string, x []*tensor.Dense, n int) error {
	if len(x) != n {
		return opErr(op, cr.ErrInvalidArgument, "takes %d inputs, got %d", n, len(x))
	}
	for k, v := range x {
		if v == nil {
			return opErr(op, cr.ErrInvalidArgument, "input %d is nil", k)
		}
	}
	return nil
}

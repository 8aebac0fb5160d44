package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// checked returns op (of any number of outputs) with its input values checked
// before it is applied: arity values, none nil, which check then accepts. A
// composite body can then assume valid shapes, and an invalid input is an error
// naming the op rather than an error of an inner op.
func checked(op cr.Op[*tensor.Dense], arity int, check func(x []*tensor.Dense) error) cr.Op[*tensor.Dense] {
	return checkedOp{op: op, guard: guard{name: op.Name(), arity: arity, check: check}}
}

// guard is the input check of a checked op named name.
type guard struct {
	name  string
	arity int
	check func(x []*tensor.Dense) error
}

// validate returns an error unless x holds arity values, none nil, that check
// accepts.
func (g guard) validate(x []*tensor.Dense) error {
	if err := checkInputs(g.name, x, g.arity); err != nil {
		return err
	}
	return g.check(x)
}

type checkedOp struct {
	op cr.Op[*tensor.Dense]
	guard
}

func (o checkedOp) Name() string                    { return o.op.Name() }
func (o checkedOp) NumOutputs() int                 { return o.op.NumOutputs() }
func (o checkedOp) Differentiable(k int) bool       { return cr.IsDifferentiable(o.op, k) }
func (o checkedOp) OutputDifferentiable(m int) bool { return cr.IsOutputDifferentiable(o.op, m) }

func (o checkedOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, out, nil)
}

func (o checkedOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if err := o.validate(x); err != nil {
		return nil, err
	}
	if m, ok := o.op.(cr.MaskedOp[*tensor.Dense]); ok && need != nil {
		return m.ApplyMasked(in, x, out, need)
	}
	return o.op.Apply(in, x, out)
}

// matrices is the check of an op whose input is a batch of matrices.
func matrices(op string) func(x []*tensor.Dense) error {
	return func(x []*tensor.Dense) error {
		_, _, _, _, err := batchShape(op, "A", x[0])
		return err
	}
}

// squareMatrices is the check of an op whose input is a batch of square matrices.
func squareMatrices(op string) func(x []*tensor.Dense) error {
	return func(x []*tensor.Dense) error {
		_, _, _, err := square(op, "A", x[0])
		return err
	}
}

// checkInputs returns an error unless there are n inputs, none nil, none too large
// to copy (checkCopies).
func checkInputs(op string, x []*tensor.Dense, n int) error {
	if len(x) != n {
		return opErr(op, cr.ErrInvalidArgument, "takes %d inputs, got %d", n, len(x))
	}
	for k, v := range x {
		if v == nil {
			return opErr(op, cr.ErrInvalidArgument, "input %d is nil", k)
		}
	}
	return checkCopies(op, x)
}

// checkCopies returns an error wrapping chainrules.ErrInvalidArgument, naming the
// op, if memory cannot hold a copy of some (non-nil) input (tensor.CheckCopies): a
// broadcast view of any size costs nothing, but the kernels work on contiguous
// copies of the matrices, and on a tape the input's cotangent is as large.
func checkCopies(op string, x []*tensor.Dense) error {
	return tensor.CheckCopies("linalg."+op, x)
}

// define is core.Define for the package's ops: the primal runs only on inputs that
// checkCopies accepts, so that a view too large to copy is an error before a
// kernel allocates.
func define(d core.Def[*tensor.Dense]) cr.Op[*tensor.Dense] {
	name, primal := d.Name, d.Primal
	d.Primal = func(x []*tensor.Dense) ([]*tensor.Dense, error) {
		if err := checkCopies(name, x); err != nil {
			return nil, err
		}
		return primal(x)
	}
	return core.Define(d)
}

// checkApply is checkInputs for an op's Apply(in, x): it also checks that in names
// one node for each of the n inputs.
func checkApply(op string, in []cr.NodeID, x []*tensor.Dense, n int) error {
	if err := checkInputs(op, x, n); err != nil {
		return err
	}
	if len(in) != n {
		return opErr(op, cr.ErrInvalidArgument, "got %d NodeIDs, want %d (one per input)", len(in), n)
	}
	return nil
}

// valuesOnly returns op with a cheaper primal, values, for an application in which
// no input needs a cotangent (recorded without gradient, or on constants): eigvalsh
// and svdvals then skip the vectors that only their derivatives use, as LAPACK's
// xSYEV and xGESVD with jobz = 'N' do (where values does: their float64 kernels).
// values must agree with op's output.
func valuesOnly(op cr.Op[*tensor.Dense], values func(x []*tensor.Dense) (*tensor.Dense, error)) cr.Op[*tensor.Dense] {
	return valuesOnlyOp{op: op, values: values}
}

type valuesOnlyOp struct {
	op     cr.Op[*tensor.Dense]
	values func(x []*tensor.Dense) (*tensor.Dense, error)
}

func (o valuesOnlyOp) Name() string    { return o.op.Name() }
func (o valuesOnlyOp) NumOutputs() int { return 1 }

func (o valuesOnlyOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.op.Apply(in, x, out)
}

func (o valuesOnlyOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if need != nil && !slices.Contains(need, true) { // nil need: every input
		y, err := o.values(x)
		if err != nil {
			return nil, err
		}
		out[0] = y
		return noCotangentRule{in: slices.Clone(in)}, nil
	}
	if m, ok := o.op.(cr.MaskedOp[*tensor.Dense]); ok {
		return m.ApplyMasked(in, x, out, need)
	}
	return o.op.Apply(in, x, out)
}

// noCotangentRule is the rule of an op none of whose inputs needs a cotangent: it
// contributes nothing to any input, in every sweep (no input has a tangent either).
type noCotangentRule struct{ in []cr.NodeID }

func (r noCotangentRule) Inputs() []cr.NodeID { return r.in }

func (r noCotangentRule) Pullback(_ []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return dst, nil
}

func (r noCotangentRule) Forward(_ cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	return nil
}

func (r noCotangentRule) PullbackWithTangents(_ cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return dst, nil
}

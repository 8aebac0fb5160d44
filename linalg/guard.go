package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// checked returns op (of any number of outputs) with its input values checked
// before it is applied: arity values, none nil, which check (if not nil) then accepts. A
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
	if err := opkit.CheckInputs(g.name, x, g.arity); err != nil || g.check == nil {
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
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, need)
	}
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

// define is core.Define for the package's ops: the primal runs only on inputs that
// opkit.CheckCopies accepts, so that a view too large to copy is an error before a
// kernel allocates, and single precision goes through the double-precision
// definition (checked, applySingle).
func define(d core.Def[*tensor.Dense]) cr.Op[*tensor.Dense] {
	name, primal := d.Name, d.Primal
	d.Primal = func(x []*tensor.Dense) ([]*tensor.Dense, error) {
		if err := opkit.CheckCopies(name, x); err != nil {
			return nil, err
		}
		return primal(x)
	}
	return checked(core.Define(d), d.Arity, nil)
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
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	return o.op.Apply(in, x, out)
}

func (o valuesOnlyOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, need)
	}
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

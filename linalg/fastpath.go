package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// fastFunc computes the first-order cotangents of a multi-output op's inputs
// directly, for the cotangent patterns it handles (ok false: not handled). x and y
// are the op's inputs and outputs; ybar[m] is read only where has[m].
type fastFunc func(x, y, ybar []*tensor.Dense, has []bool) (xbar []*tensor.Dense, ok bool, err error)

// withFastPath wraps a defined multi-output op so that its first-order pullback
// takes fast for the cotangent patterns fast handles — typically, "only the
// eigenvalues (singular values) were used": the defined pullback would then divide
// a zero cotangent by eigenvalue gaps, which gives NaN at repeated eigenvalues
// where the true cotangent is finite (PyTorch does not evaluate that term either).
// Forward tangents and second-order rules are the defined op's.
func withFastPath(op cr.MultiOp[*tensor.Dense], fast fastFunc) cr.MultiOp[*tensor.Dense] {
	return fastOp{op: op, fast: fast}
}

type fastOp struct {
	op   cr.MultiOp[*tensor.Dense]
	fast fastFunc
}

func (o fastOp) Name() string    { return o.op.Name() }
func (o fastOp) NumOutputs() int { return o.op.NumOutputs() }
func (o fastOp) Differentiable(k int) bool {
	if p, ok := o.op.(cr.PartialOp); ok {
		return p.Differentiable(k)
	}
	return true
}
func (o fastOp) OutputDifferentiable(m int) bool { return cr.IsOutputDifferentiable(o.op, m) }

func (o fastOp) ApplyMulti(in []cr.NodeID, x []*tensor.Dense) ([]*tensor.Dense, cr.MultiRule[*tensor.Dense], error) {
	ys, r, err := o.op.ApplyMulti(in, x)
	if err != nil {
		return nil, nil, err
	}
	return ys, &fastRule{MultiRule: r, in: slices.Clone(in), x: slices.Clone(x), y: slices.Clone(ys), fast: o.fast, diff: o.Differentiable}, nil
}

type fastRule struct {
	cr.MultiRule[*tensor.Dense]
	in   []cr.NodeID
	x, y []*tensor.Dense
	fast fastFunc
	diff func(int) bool
}

func (r *fastRule) PullbackMulti(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, ok, err := r.fast(r.x, r.y, ybar, has)
	if err != nil {
		return dst, err
	}
	if !ok {
		return r.MultiRule.PullbackMulti(ybar, has, dst)
	}
	for k, id := range r.in {
		if r.diff(k) {
			dst = append(dst, cr.Contribution[*tensor.Dense]{Node: id, Value: xbar[k]})
		}
	}
	return dst, nil
}

func (r *fastRule) ForwardTangentsMulti(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	f, ok := r.MultiRule.(cr.MultiForwardRule[*tensor.Dense])
	if !ok {
		return cr.Errorf(cr.ErrNoRule, "no forward rule")
	}
	return f.ForwardTangentsMulti(tangentOf, ydot, has)
}

func (r *fastRule) PullbackWithTangentsMulti(ct []cr.Dual[*tensor.Dense], has []bool, tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	s, ok := r.MultiRule.(cr.MultiSecondOrderRule[*tensor.Dense])
	if !ok {
		return dst, cr.Errorf(cr.ErrHVPNotSupported, "no second-order rule")
	}
	return s.PullbackWithTangentsMulti(ct, has, tangentOf, dst)
}

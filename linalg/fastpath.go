package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// fastFunc computes the first-order cotangents of a multi-output op's inputs
// directly, for the cotangent patterns it handles (ok false: not handled). x and y
// are the op's inputs and outputs; ybar[m] is read only where has[m].
type fastFunc func(x, y, ybar []*tensor.Dense, has []bool) (xbar []*tensor.Dense, ok bool, err error)

// fastRecord records, for the cotangent patterns the fast path handles (ok false:
// not handled), the same cotangents as fastFunc with ops, from the nodes of the
// inputs x, the outputs y and their cotangents ybar (the zero NodeID where absent).
type fastRecord func(t *tape, x, y, ybar []cr.NodeID) (xbar []cr.NodeID, ok bool)

// withFastPath wraps a defined multi-output op so that its first-order pullback
// takes fast for the cotangent patterns fast handles — typically, "only the
// eigenvalues (singular values) were used": the defined pullback would then divide
// a zero cotangent by eigenvalue gaps, which gives NaN at repeated eigenvalues
// where the true cotangent is finite (PyTorch does not evaluate that term either).
// Forward tangents and second-order rules are the defined op's. The pullback
// recorded with ops (RecordPullback, for core.Tape.GradGraph) is record's for the
// patterns it handles, the same formula as fast, and the defined op's otherwise.
func withFastPath(op cr.Op[*tensor.Dense], fast fastFunc, record fastRecord) cr.Op[*tensor.Dense] {
	return fastOp{op: op, fast: fast, record: record}
}

type fastOp struct {
	op     cr.Op[*tensor.Dense]
	fast   fastFunc
	record fastRecord
}

func (o fastOp) Name() string                    { return o.op.Name() }
func (o fastOp) NumOutputs() int                 { return o.op.NumOutputs() }
func (o fastOp) Differentiable(k int) bool       { return cr.IsDifferentiable(o.op, k) }
func (o fastOp) OutputDifferentiable(m int) bool { return cr.IsOutputDifferentiable(o.op, m) }

func (o fastOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	r, err := o.op.Apply(in, x, out)
	if err != nil {
		return nil, err
	}
	return &fastRule{inner: r, name: o.op.Name(), in: slices.Clone(in), x: slices.Clone(x), y: slices.Clone(out), fast: o.fast,
		record: o.record, diff: o.Differentiable}, nil
}

// fastRule is the defined op's rule with the fast first-order pullback in front.
type fastRule struct {
	inner  cr.Rule[*tensor.Dense]
	name   string
	in     []cr.NodeID
	x, y   []*tensor.Dense
	fast   fastFunc
	record fastRecord
	diff   func(int) bool
}

func (r *fastRule) Inputs() []cr.NodeID { return r.inner.Inputs() }

func (r *fastRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, ok, err := r.fast(r.x, r.y, ybar, has)
	if err != nil {
		return dst, err
	}
	if !ok {
		return r.inner.Pullback(ybar, has, dst)
	}
	for k, id := range r.in {
		if r.diff(k) {
			dst = append(dst, cr.Contribution[*tensor.Dense]{Node: id, Value: xbar[k]})
		}
	}
	return dst, nil
}

func (r *fastRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	f, ok := r.inner.(cr.ForwardRule[*tensor.Dense])
	if !ok {
		return opErr(r.name, cr.ErrNoRule, "no forward rule")
	}
	return f.Forward(tangentOf, ydot, has)
}

func (r *fastRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	s, ok := r.inner.(cr.SecondOrderRule[*tensor.Dense])
	if !ok {
		return dst, opErr(r.name, cr.ErrHVPNotSupported, "no second-order rule")
	}
	return s.PullbackWithTangents(a, dst)
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder): the
// fast path's formula, recorded, for the cotangent patterns it handles (the
// defined pullback would divide a zero cotangent by eigenvalue gaps there, NaN at
// repeated eigenvalues where Pullback is finite), and the defined op's recorded
// pullback otherwise.
func (r *fastRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if r.record != nil {
		t, err := tapeOf(rec, r.name)
		if err != nil {
			return nil, err
		}
		if xbar, ok := r.record(t, x, y, ybar); ok {
			xbar = slices.Clone(xbar)
			for k := range xbar {
				if !r.diff(k) {
					xbar[k] = 0
				}
			}
			return xbar, t.Err()
		}
	}
	p, ok := r.inner.(cr.PullbackRecorder[*tensor.Dense])
	if !ok {
		// Not reached by the package's ops, whose inner rules are core.Define's.
		return nil, cr.ErrOrderNotSupported
	}
	return p.RecordPullback(rec, x, y, ybar)
}

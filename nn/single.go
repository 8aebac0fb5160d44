package nn

import (
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Single precision. Every op of the package takes float32 (and complex64 where it
// takes complex128) through opkit.ApplyWidened: the inputs are widened exactly, the
// op's double-precision kernels and rules run, and each result is rounded once to
// the inputs' precision (tensor.PromoteTypes: a float64 input next to a float32 one
// keeps the result float64, as in PyTorch). Cotangents and tangents are rounded to
// their input's dtype, and the recorded pullback is the double-precision one between
// recorded casts, so derivatives of every order stay in single precision. Each op's
// Apply (ApplyMasked, where it has one) starts with
//
//	if opkit.HasSingle(x) { return applySingle(o, in, x, y, need) }
//
// so that everything after it sees float64 and complex128 only. The ops that run
// float32 natively check for it before that line (native.go; and the
// normalisations but batch_norm in evaluation, softmax, log_softmax and
// cross_entropy with float64 accumulators, whose Pullback is native and whose
// other rules are the widened op's: norm_rows.go, norm_channels32.go,
// softmax_single.go, crossentropy_single.go).

// applySingle applies op to x, some of which is single precision, with the mask
// need (a nil need: every input): opkit.ApplyWidenedMasked.
func applySingle(op cr.Op[*tensor.Dense], in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	return opkit.ApplyWidenedMasked(op, in, x, y, need)
}

// withSingle returns op taking single precision too (applySingle), for the ops
// defined by core.Define or core.Composite with no input check of their own.
func withSingle(op cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return checkedOp{Op: op} }

// widened returns a tensor parameter of an op (a loss weight, running statistics,
// an attention mask) widened exactly to double precision when it is float32 or
// complex64, and t itself otherwise (nil included): the op's kernels read their
// parameters in double precision whatever the precision of the inputs.
func widened(t *tensor.Dense) *tensor.Dense {
	if t == nil || !t.DType().IsSingle() {
		return t
	}
	w, err := tensor.Space{}.Widen(t)
	if err != nil {
		panic(err) // Widen fails only on nil
	}
	return w
}

// lazyForms gives a rule whose Pullback is its own (a fused or native kernel)
// the other forms of a rule — Forward, PullbackWithTangents and RecordPullback —
// from the op's rule at the same inputs, built on first use: most sweeps ask
// only for the pullback. With widen (a float32 rule) that is the op's rule at
// the inputs widened (applySingle), whose derivatives are rounded to single
// precision and whose recorded pullback is the double-precision one between
// casts; otherwise the op's own rule (a normalisation's defined op).
type lazyForms struct {
	op    cr.Op[*tensor.Dense]
	in    []cr.NodeID
	x     []*tensor.Dense
	need  []bool // applySingle's mask (nil: every input)
	widen bool
	once  sync.Once
	rule  cr.Rule[*tensor.Dense]
	err   error
}

func (w *lazyForms) Inputs() []cr.NodeID { return w.in }

// inner returns the op's rule at the inputs, widened or not.
func (w *lazyForms) inner() (cr.Rule[*tensor.Dense], error) {
	w.once.Do(func() {
		y := make([]*tensor.Dense, w.op.NumOutputs())
		if w.widen {
			w.rule, w.err = applySingle(w.op, w.in, w.x, y, w.need)
			return
		}
		w.rule, w.err = w.op.Apply(w.in, w.x, y)
	})
	return w.rule, w.err
}

// Forward is the inner rule's.
func (w *lazyForms) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	r, err := w.inner()
	if err != nil {
		return err
	}
	return r.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
}

// PullbackWithTangents is the inner rule's (for a defined op, a forward sweep
// through the recorded pullback).
func (w *lazyForms) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	r, err := w.inner()
	if err != nil {
		return dst, err
	}
	return r.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
}

// RecordPullback is the inner rule's: the same cotangents recorded with ops.
func (w *lazyForms) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	r, err := w.inner()
	if err != nil {
		return nil, err
	}
	return r.(cr.PullbackRecorder[*tensor.Dense]).RecordPullback(rec, x, y, ybar)
}

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

// widenedForms gives a float32 rule whose Pullback is native the other forms of
// a rule — Forward, PullbackWithTangents and RecordPullback — from the op's rule
// at its inputs widened (applySingle), built on first use: most sweeps ask only
// for the pullback. The widened rule's derivatives are rounded to single
// precision, and its recorded pullback is the double-precision one between casts.
type widenedForms struct {
	op   cr.Op[*tensor.Dense]
	in   []cr.NodeID
	x    []*tensor.Dense
	need []bool
	once sync.Once
	wide cr.Rule[*tensor.Dense]
	err  error
}

func (w *widenedForms) Inputs() []cr.NodeID { return w.in }

// widened returns the op's rule at the widened inputs.
func (w *widenedForms) widened() (cr.Rule[*tensor.Dense], error) {
	w.once.Do(func() {
		w.wide, w.err = applySingle(w.op, w.in, w.x, make([]*tensor.Dense, w.op.NumOutputs()), w.need)
	})
	return w.wide, w.err
}

// Forward is the widened rule's.
func (w *widenedForms) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	r, err := w.widened()
	if err != nil {
		return err
	}
	return r.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
}

// PullbackWithTangents is the widened rule's.
func (w *widenedForms) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	r, err := w.widened()
	if err != nil {
		return dst, err
	}
	return r.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
}

// RecordPullback is the widened rule's.
func (w *widenedForms) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	r, err := w.widened()
	if err != nil {
		return nil, err
	}
	return r.(cr.PullbackRecorder[*tensor.Dense]).RecordPullback(rec, x, y, ybar)
}

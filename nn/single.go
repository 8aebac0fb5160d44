package nn

import (
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

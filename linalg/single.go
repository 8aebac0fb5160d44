package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Single precision. Every op of the package takes float32 (and complex64 where it
// takes complex128) through opkit.ApplyWidened: the inputs are widened exactly, the
// double-precision factorisations (gonum's LAPACK) and rules run, and each output
// is rounded once to single precision (tensor.PromoteTypes: a float64 input next to
// a float32 one keeps the outputs double, as in PyTorch). Cotangents and tangents
// are rounded to their input's dtype, and the recorded pullback is the
// double-precision one between recorded casts, so derivatives of every order stay
// in single precision. Each op's Apply (ApplyMasked, where it has one) starts with
//
//	if opkit.HasSingle(x) { return applySingle(o, in, x, y, need) }
//
// so that its kernels see float64 and complex128 only. Integer-valued outputs
// (pivots, ranks, info codes) are rounded like the others: they are exact in
// float32 below 2^24.

// applySingle applies op to x, some of which is single precision, with the mask
// need (a nil need: every input): opkit.ApplyWidenedMasked.
func applySingle(op cr.Op[*tensor.Dense], in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	return opkit.ApplyWidenedMasked(op, in, x, y, need)
}

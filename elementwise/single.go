package elementwise

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Single precision. The ops of this package take float32 and complex64 tensors as
// well, through opkit.ApplyWidened: an application with a single-precision
// input runs the op's double-precision definition on the inputs widened exactly
// and rounds each output once, to the dtype tensor.PromoteTypes gives the inputs;
// its rule widens the cotangents and tangents it is given, runs the
// double-precision rule, and rounds each input's cotangent (and tangent) to that
// input's dtype. A single-precision result is so the correctly rounded
// double-precision one (more accurate than a float32 kernel, whose results differ
// from PyTorch's float32 kernels by a few ulp), at the cost of the conversions.
// The recorded pullback is the double-precision rule's, recorded with the same
// registered ops on the single-precision nodes, so derivatives of every order
// stay in single precision. The linear helpers sum_to, reshape and mask_mul
// compute natively in every dtype.

// hasSingle reports whether some input is float32 or complex64.
func hasSingle(xs []*tensor.Dense) bool { return opkit.HasSingle(xs) }

// applySingle is opkit.ApplyWidened: op applied to single-precision inputs in double
// precision.
func applySingle(op cr.Op[*tensor.Dense], in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return opkit.ApplyWidened(op, in, xs, ys)
}

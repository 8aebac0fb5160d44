// Package reduce holds the axis reductions of chainrules-go: Sum, Mean, Prod, Max
// ("amax"), Min ("amin"), LogSumExp, Var and Std, and the NaN-ignoring NanSum and
// NanMean, each with its pullback, forward tangent and second-order rule.
//
// Every reduction takes the axes to reduce (nil or empty for all of them, negative
// counting from the end, as in Python; a repeated or out-of-range axis is an error
// wrapping chainrules.ErrInvalidArgument) and keepdim, which keeps the reduced
// axes with size 1. Sum, Mean, Prod, Var and Std accept complex128 as PyTorch
// defines them (Var and Std of complex input are real); the others are float64
// only.
//
// Kernels work on a canonical [Outer, Len, Inner] layout (a opkit.Lanes) whose
// middle axis is reduced: y[i, j] reduces the lane x[i, 0..Len-1, j]. When the
// reduced axes are adjacent the input is used in place, otherwise it is copied once
// with tensor.Dense.Clone. Sum, Mean, NanSum, NanMean, Max and Min are linear in x
// given what they record (the NaN pattern, the position of the extrema), so their
// rules are chainrules.UnaryLinearRule of a map and its adjoint. The doc comment of each op gives its maths and
// rules; the policies at the points where derivatives do not exist are:
//
//   - Max and Min split the cotangent evenly among tied extrema (PyTorch's amax,
//     JAX), and a NaN in a slice makes its result NaN;
//   - Std takes the gradient 0 where the standard deviation is 0 (PyTorch);
//   - Prod computes the product of the other elements by prefix and suffix
//     products, so zeros need no division.
//
// Every reduction also records its pullback with ops (chainrules.PullbackRecorder),
// so that recorded backward sweeps (core.Tape.GradGraph) differentiate it to any
// order: the linear ones by their adjoint maps, LogSumExp, Prod, Var and Std with a
// small set of internal ops that record their own pullbacks in turn (record.go:
// elementwise product, exp, a reciprocal that is 0 at 0, a linear recurrence along
// the lanes, and linear helpers), since the package cannot use the elementwise ops.
//
// A recording:
//
//	tape := core.NewTape[*tensor.Dense](tensor.Space{})
//	x := tape.Leaf(tensor.RandN(nil, tensor.Float64, 32, 10))
//	loss := tape.Apply(reduce.MeanOp(nil, false), tape.Apply(reduce.LogSumExpOp([]int{1}, false), x))
//	grads, err := tape.Backward(loss)
//
// Register adds the families to a registry under the names "sum", "mean", "prod",
// "amax", "amin", "logsumexp", "var", "std", "nansum", "nanmean"; package ops puts
// them in the default registry with the other built-in families.
package reduce

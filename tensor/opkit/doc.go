// Package opkit holds the helpers that op packages share and users of tensors do
// not need: what an op's Apply checks, how it reads an axis, how its kernels walk
// lanes and strided operands, and how it takes single precision.
//
// # Where to start
//
// An op's Apply begins with one check of its inputs, CheckApply(name, in, x,
// want), which refuses a wrong count of inputs, a nil tensor, a view too large for memory
// to copy (CheckCopies) and a dtype the op does not support (CheckDTypes: float32
// and complex64 unless the op calls CheckApplyAll). The errors wrap
// chainrules.ErrInvalidArgument (and tensor.ErrDTypeNotSupported for a dtype) and
// start with the op's name.
//
// # Axes and lanes
//
// Axis normalises an axis parameter (negative axes count from the end, as in
// Python). LanesOf describes a row-major array around one axis as [Outer, Len,
// Inner]: a reduction over the axis reads one lane per output, element
//
//	(i, k, j) at offset (i*Len + k)*Inner + j,
//
// and Lanes.All and Lanes.Rows iterate over lanes or contiguous rows.
// MergeAxes2 and Step2 walk two strided operands together, merging the axes
// that are contiguous in both.
//
// # Single precision
//
// ApplyWidened runs an op written in double precision on float32 and complex64
// inputs: the inputs are widened exactly, the op runs in double precision, and
// each result is rounded once to the promoted dtype (tensor.PromoteTypes); its
// rule rounds each cotangent and tangent to its input's dtype, and its recorded
// pullback sits between CastOp casts, so derivatives of every order stay in the
// inputs' precision. ApplyWidenedMasked is the same for an op applied with a mask
// of the inputs that need cotangents (chainrules.MaskedOp), and names the dtypes
// the caller gave when the double-precision application fails.
//
// # Rules
//
// FullRule names a rule with all four forms (pullback, forward tangent,
// second-order pullback, recorded pullback), as chainrules.LinearRule returns: a
// wrapper that adds a method to such a rule embeds one.
package opkit

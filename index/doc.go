// Package index holds the slicing, indexing and joining ops of chainrules-go, each
// with its pullback, forward tangent and second-order rule, for float64 and
// complex128 tensors:
//
//   - Slice (start:stop:step per axis, Python's negative indices), Narrow, Select
//     and Diagonal take views;
//   - Gather, IndexSelect and ScatterAdd index with fixed integer indices;
//   - Concat and Stack join; Split cuts, as one multi-output op whose outputs are
//     views of x (ApplySplit and ApplyChunk record it on a Recorder);
//   - Pad, Flip and Roll move elements; Where chooses by a fixed boolean mask;
//     Tril and Triu keep a triangle of the last two axes (with a diagonal offset).
//
// Every op is linear in its differentiable inputs: indices, masks, ranges and
// shifts are parameters of the op, fixed when it is built, and receive no
// cotangent. So for y = A x the rules are
//
//	pullback  xbar    = A^T ybar     (coefficients are 0 and 1: no conjugation)
//	tangent   ydot    = A xdot
//	second    xbardot = A^T ybardot  (A does not depend on x)
//
// and the adjoint of a gather is a scatter-add that accumulates repeated indices.
// Every rule also records its pullback with ops (chainrules.PullbackRecorder: the
// adjoint map is itself a linear op), so every op is differentiable to any order by
// recorded backward sweeps (core.Tape.GradGraph); the row-sparse rules of Gather
// and IndexSelect along axis 0 keep that form too.
// Ops with several inputs promote to complex128 when any input is complex; a real
// input then receives the real part of its cotangent (PyTorch's convention).
//
// Outputs are fresh contiguous tensors, never views of the inputs, except Split's,
// which are views of x (a tape never mutates the values it records). Bad parameters
// (an axis or index out of range, a negative step, shapes that do not fit) are
// errors from Apply that wrap chainrules.ErrInvalidArgument or ErrShapeMismatch and
// name the op, the axis and the value; a tape keeps them as its sticky error.
//
// Register adds each family to a registry under its PyTorch-style name: "slice",
// "narrow", "select", "diagonal", "gather", "index_select", "scatter_add",
// "concat", "stack", "split", "pad", "flip", "roll", "where"; package ops puts them
// in the default registry with the other built-in families.
//
// The Rosenbrock function sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2 needs the
// shifted views x[1:] and x[:-1]:
//
//	tape := core.NewTape[*tensor.Dense](tensor.Space{})
//	x := tape.Leaf(v)
//	hi := tape.Apply(index.SliceOp(index.Range{Start: 1, Stop: index.End}), x)
//	lo := tape.Apply(index.SliceOp(index.Range{Stop: -1}), x)
//	// ... elementwise arithmetic and a sum, then tape.Backward.
package index

// Package permute holds the layout ops of chainrules-go: Permute, Transpose,
// MoveAxis, Reshape, Squeeze, Unsqueeze, BroadcastTo and Adjoint (the conjugate
// transpose of the last two axes, torch.adjoint), each with its pullback,
// forward tangent and second-order rule, and Materialize, a cache-blocked copy of
// permuted views.
//
// Every op is linear and only moves (or, for BroadcastTo, repeats) elements, so its
// rules are the layout map L and its adjoint: xbar = L^* ybar, ydot = L xdot and
// xbardot = L^* ybardot. The adjoint of a permutation is the inverse permutation,
// of a reshape the reverse reshape, and of a broadcast the sum over the broadcast
// axes (tensor.SumTo). The rules are chainrules.UnaryLinearRule of the two maps,
// which also records the pullback with an op (the adjoint map, whose own adjoint is
// L), so every op is differentiable to any order by recorded backward sweeps
// (core.Tape.GradGraph).
//
// Outputs are views of the input where the strides allow (always for the
// permutations and BroadcastTo, and for Reshape of contiguous inputs), so the ops
// cost no copy; the values a tape records are never mutated, so the views are safe.
// Materialize turns a permuted view into a contiguous tensor at about the cost of a
// plain copy.
//
// Recording on a tape:
//
//	tape := core.NewTape[*tensor.Dense](tensor.Space{})
//	x := tape.Leaf(tensor.RandN(nil, tensor.Float64, 2, 3, 4))
//	y := tape.Apply(permute.PermuteOp(2, 0, 1), x) // shape [4 2 3]
//
// Register adds the families to a registry under the names "permute",
// "transpose", "moveaxis", "reshape", "squeeze", "unsqueeze", "broadcast_to";
// package ops puts them in the default registry with the other built-in families.
package permute

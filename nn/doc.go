// Package nn holds the neural-network functions of chainrules-go that are built from
// other ops: softmax and log_softmax along an axis, as composite ops
// (core.Composite). Their pullbacks, forward tangents and second-order rules come
// from the recorded bodies, so Hessian-vector products through them are exact.
//
// Along the chosen axis, with s = softmax(x) and the sums taken over that axis,
//
//	log_softmax(x) = z - log(sum(exp(z)))
//	softmax(x)     = exp(z) / sum(exp(z)),      z = x - max(x)
//
// whose derivatives are the familiar
//
//	xbar = s (ybar - sum(s ybar))        (softmax)
//	xbar = ybar - s sum(ybar)            (log_softmax).
//
// The maximum is recorded without gradient (both functions are invariant under a
// shift of x along the axis, so this is exact, to every order): large inputs
// neither overflow nor lose precision, and ties in the maximum do not matter.
package nn

package chainrules

// AffineRule is an optional interface of a SecondOrderRule. Affine reports whether
// the recorded op is affine in its inputs, y = A x + b with A and b not depending
// on x (scale, shift, negation, add, sub), so that its Jacobian is the same at
// every point and its pullback xbar = A^* ybar does not depend on x. The
// second-order pullback is then
//
//	(xbar, xbardot) = (A^* ybar, A^* ybardot),
//
// and when ybar has no tangent (ybardot = 0) xbardot is zero whatever the input
// tangents: the engine runs the plain Pullback and carries no tangent on, instead of
// a second-order pullback that writes a zero term f"(x) xdot ybar.
type AffineRule interface {
	Affine() bool
}

// Affine reports true: a linear rule's maps do not depend on the inputs it
// differentiates (LinearRule).
func (*linearRule[V]) Affine() bool { return true }

// InputTangentsOnly is an optional interface of a SecondOrderRule whose
// PullbackWithTangents reads the tangents of the op's inputs (TangentOf) but never
// those of its outputs (SecondOrderArgs.Outputs), such as a product rule written
// from x and xdot. A forward sweep made for a second-order sweep
// (core.Tape.ForwardTangentsFor) then computes the outputs' tangents only when a
// later op needs them: the n × k tangent of kmeans' matrix product P Cᵀ, which
// only affine ops read, is not computed.
type InputTangentsOnly interface {
	InputTangentsOnly()
}

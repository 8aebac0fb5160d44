// Package ruletest checks differentiation rules: it is to a chainrules.ReverseRule
// what testing/fstest is to an fs.FS. Given an op (a primal with its rules) and
// input values, or a whole chainrules.Registry whose entries supply sample inputs,
// it verifies numerically and structurally that the rules differentiate the primal:
//
//   - primal: the output recorded on a tape equals a fresh evaluation;
//   - structure: Pullback returns exactly one contribution per differentiable input,
//     shaped and typed like that input, naming only NodeIDs from Inputs();
//   - adjoint-fd: for random unit directions v and cotangents ybar,
//     <ybar, J v>_fd == <J^* ybar, v>, with J v from a 5-point central difference
//     (fourth order); jacobian: for small inputs (opt in with
//     Config.FullJacobianMaxSize), the whole Jacobian element by element;
//   - forward-fd and forward-adjoint: ForwardTangents against finite differences,
//     and against the pullback through the exact identity <ybar, J v> == <J^* ybar, v>;
//   - second-order-fd and hessian-symmetry: PullbackWithTangents against the finite
//     difference of the pullback along the input tangents, and <u, H v> == <v, H u>
//     for the Hessian of phi(x) = Re<ybar, f(x)>;
//   - linearity, zero-cotangent, repeat and mutation: the pullback is linear in the
//     cotangent, maps zero to zero, gives the same answer when called twice, and
//     mutates neither the inputs nor the cotangent;
//   - interfaces: a registry entry's Forward and SecondOrder flags match the
//     interfaces its rules implement.
//
// Complex values follow PyTorch's convention: a pullback is the adjoint of the JVP
// under the real inner product <a, b> = Re sum_i conj(a_i) b_i. For complex inputs
// every directional check runs along a random direction v and along i*v, so that a
// rule missing a conjugate fails.
//
// The checker comes in the two standard shapes: Check and CheckRegistry report
// through a testing.TB with one subtest per check and input, and Verify and
// VerifyRegistry return the failures joined with errors.Join (each a *Failure
// wrapping ErrCheckFailed), for use outside go test.
//
//	func TestSoftplus(t *testing.T) {
//		x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 3, 4)
//		ruletest.Check(t, tensor.Space{}, softplusOp, []*tensor.Dense{x}, ruletest.Config{})
//	}
//
// Element access (for worst-element reports and the full Jacobian) is built in for
// float64, complex128 and *tensor.Dense values; other value types opt in by giving
// their Space the methods of ElementSpace.
package ruletest

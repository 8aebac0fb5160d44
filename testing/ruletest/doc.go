// Package ruletest checks differentiation rules: it is to a chainrules.Rule
// what testing/fstest is to an fs.FS. Given an op (a primal with its rules) and
// input values, or a whole chainrules.Registry whose entries supply sample inputs,
// it verifies numerically and structurally that the rules differentiate the primal:
//
//   - primal: the output recorded on a tape equals a fresh evaluation;
//   - structure: Pullback returns exactly one contribution per differentiable input,
//     shaped and typed like that input, naming only NodeIDs from Inputs(), and so do
//     Forward and PullbackWithTangents (whose cotangent must be Pullback's);
//     a structure failure does not stop the other checks, which then show which
//     method is wrong;
//   - adjoint-fd: for random unit directions v and cotangents ybar,
//     <ybar, J v>_fd == <J^* ybar, v>, with J v from a 5-point central difference
//     (fourth order); jacobian: for small inputs (opt in with
//     Config.FullJacobianMaxSize), the whole Jacobian element by element;
//   - forward-fd and forward-adjoint: Forward against finite differences,
//     and against the pullback through the exact identity <ybar, J v> == <J^* ybar, v>;
//   - second-order-fd and hessian-symmetry: PullbackWithTangents against the finite
//     difference of the pullback along the input tangents, and <u, H v> == <v, H u>
//     for the Hessian of phi(x) = Re<ybar, f(x)>;
//   - linearity, zero-cotangent, repeat and mutation: the pullback is linear in the
//     cotangent, maps zero to zero, gives the same answer when called twice, and
//     mutates neither the inputs nor the cotangent;
//   - interfaces: a registry entry's Forward and SecondOrder flags match the
//     interfaces its rules implement;
//   - masked: for a chainrules.MaskedOp, ApplyMasked with every need[k] true and
//     with each single need[k] false gives Apply's output and, for the inputs it
//     needs, Apply's cotangents, tangents and second-order pairs;
//   - retain: Apply keeps neither the slice in nor the slice x (the caller
//     overwrites both after Apply; Inputs and the pullback must not change);
//   - rows: for a chainrules.RowPullbackRule, the terms of RowPullback, with the
//     row-sparse ones added into zeros by the Space's AddRows, equal Pullback's;
//   - sums: for a chainrules.SumPullbackRule, PullbackSum (given no sum, and
//     given the cotangent's SumOf) appends Pullback's contributions bit for bit,
//     with sums equal to the Space's SumOf of their contributions, bit for bit;
//   - kink: at a declared kink (Config.Kink), the documented one-sided or split rule
//     for the pullback, the tangent and the second-order rule.
//
// Registry samples stay away from kinks by design: every check above but kink
// compares the rules with finite differences, which need the primal smooth around
// the sample, and a Kink states the expected derivatives at one known point, which a
// sample generator drawing random inputs cannot. So CheckRegistry and
// VerifyRegistry ignore Config.Kink, and the registering packages draw their samples
// off the kinks (elementwise's sample domains keep away from 0, the integers and
// ties; nn's samples stay away from kinks and ties); the kinks themselves — relu,
// abs, hardtanh, elu, selu and celu, maximum and minimum ties, hypot and atan2 at the
// origin, amax and amin ties — are checked with Check and a Kink, first and second
// order, in the packages' own tests (elementwise's TestKinks, reduce's TestTies).
//
// Ops with several outputs are checked by the same functions: every
// check runs with each differentiable output's cotangent alone and with all of them
// together, failures name the outputs, non-differentiable outputs never receive a
// cotangent, and the absent-outputs check requires that the rule does not read the
// cotangent of an output whose has[m] is false.
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
// Element access (for worst-element reports, the full Jacobian and the imaginary
// directions of complex values) is built in for float64 and complex128 values;
// other value types opt in by giving their Space the methods of ElementSpace, as
// tensor.Space does. The package depends on no value type: it is generic over V.
//
// Single precision (float32, complex64) has two checks, with the tolerances of
// each dtype stated where they apply. CheckSingle compares a single-precision
// application with the same rules in double precision at the exactly widened
// inputs (Rtol 1e-4, Atol 1e-6 normwise, SingleConfig) and runs Check there, so
// that the finite differences run in float64 (Config's float64 tolerances: Rtol
// 1e-6, Atol 1e-8); this is the tight check. Check at single-precision inputs
// runs every check in float32, with Config's 32-bit defaults (finite differences
// Rtol 1e-2, Atol 1e-3, step 1e-2; exact identities Rtol 1e-4, Atol 1e-6): it
// exercises the recorded derivatives in single precision, but a float32 stencil
// measures rounding noise of order eps |f| / h^2 in second differences, so
// callers raise Atol where the values are large (the op packages use 2e-2).
package ruletest

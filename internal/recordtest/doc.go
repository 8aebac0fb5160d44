// Package recordtest holds the test helpers that the tests of several op packages
// share, as testing/fstest does for file systems: a regular package whose
// exported functions take a testing.TB (or a *testing.T where they run subtests),
// imported by _test.go files only (the layering of internal/archtest lets no other
// package import it).
//
// Two recipes check recorded pullbacks (chainrules.PullbackRecorder, used by
// core.Tape.GradGraph), the ground of derivatives of any order:
//
//   - [CheckOp] and [CheckFamilies], for the primitive op packages (einsum, index,
//     permute, reduce): with a scalar L on the op's outputs (the seeded dot
//     product [DotOp] or the quadratic [QuadOp], whose cotangent depends on the
//     leaves), the recorded VJP equals the pullback; its derivative along a random
//     direction, by a reverse sweep over it and by forward tangents through it,
//     equals the second-order rule's H u; its recorded derivative (third order)
//     matches central differences of the second-order rule; and a fourth recorded
//     sweep goes through. Where a family has no recorded pullback, GradGraph must
//     report a *chainrules.OrderError at the expected order instead.
//   - [CheckCase], for the ops of nn and linalg, whose pullbacks are recorded
//     with other ops: the same first and second orders with a random cotangent
//     seeded on chosen outputs (and inputs held as constants), the third order by
//     forward over reverse through the recorded VJP against central differences,
//     and a recorded sweep of each input's recorded VJP, which either matches H u
//     and J u or stops with the *chainrules.OrderError that the case expects.
//
// Beside them: small helpers on values ([Value], [RandLike], [SquaredNorm],
// [RequireNear]) and shorthands for calling the rule of a one-output op by hand
// ([Apply1], [Pullback1], [Forward1], [SecondOrder1]).
package recordtest

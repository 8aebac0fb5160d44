// Package writingops shows the three cheap ways of writing an op, each checked by
// testing/ruletest to second order (see writingops_test.go):
//
//   - a composite op, recorded from other ops: SoftmaxOp (package nn fuses softmax
//     by hand for speed; its cumprod and losses are composites of this kind);
//   - an op defined by a primal and a pullback written with ops (core.Define):
//     SolveOp, whose primal is a LAPACK solve and whose pullback is another solve;
//     CumsumOp, whose pullback is a reversed cumulative sum; and FixedPointOp, an
//     implicit function (the fixed point of y = tanh(W y + x), found by iteration)
//     whose pullback solves the adjoint linear system of the implicit function
//     theorem with SolveOp;
//   - an elementwise op from f and its derivatives (see examples/customop).
//
// The engine derives each op's forward tangent and its second-order rule, so
// Hessian-vector products through them are exact.
package writingops

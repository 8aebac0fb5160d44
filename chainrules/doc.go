// Package chainrules is the protocol of chainrules-go: the contract between the
// rules that know calculus and the engine that knows graphs.
//
// Where to start: to differentiate a function of tensors, write it as an
// hvp.Func (it records its ops on a tape) and call hvp.Grad for its value and
// gradient, or hvp.Eval for its value alone; hvp also gives VJP, JVP, HVP, Hessian,
// Jacobian and Minimize. The ops are in packages elementwise, reduce, einsum,
// permute, index, nn and linalg (PyTorch's names: XxxOp, applied with
// tape.Apply(op, inputs...)), and package ops assembles their registry. Package
// core is the engine (Tape: Leaf, Apply, Backward, GradGraph) and package
// chainrules the protocol an op implements (Op, Rule); the README's "Writing an
// op" shows the four ways to add one.
//
// A value recorded on a tape is named by a [NodeID]. An operation is an [Op]: given
// its input values it computes its outputs (y_0, ..., y_{m-1}) = f(x_1, ..., x_n)
// and returns a [Rule] that differentiates f at those inputs. There is one kind of
// op: most have one output (m = 1), and eigh -> (w, V), qr -> (Q, R), split or
// topk -> (values, indices) have several, with the same interfaces. The rule's
// Pullback maps the output cotangents ybar_j (those that are present: an output
// nobody used has none, and it is never materialised) to one [Contribution] per
// differentiable input,
//
//	xbar_k = sum_j J_jk^* ybar_j,
//
// where J_jk = df_j/dx_k and ^* is the adjoint under the real inner product of
// [Space]:
//
//	<a, b> = Re sum_i conj(a_i) b_i.
//
// Two optional interfaces, found by type assertion as io.WriterTo is, give second
// order: [ForwardRule] computes the output tangents ydot_j = sum_k J_jk xdot_k (a
// JVP), and [SecondOrderRule] computes the derivative of the pullback along the
// input tangents, which is what forward-over-reverse Hessian-vector products run; it
// also receives the outputs with their forward tangents ([SecondOrderArgs]).
//
// The engine hands a rule slices with one slot per output, which it reuses from op
// to op: a single-output rule reads ybar[0] and costs no allocation. [OneOutput]
// gives a single-output op its NumOutputs, [OpFunc] turns a function into one, and
// [Eval] evaluates one without a tape ([EvalMulti]: all outputs of any op).
//
// Derivatives of any order come from a third optional interface, [PullbackRecorder]:
// RecordPullback records the pullback's cotangents with ops on the tape itself, so
// that a recorded backward sweep (core.Tape.GradGraph, PyTorch's create_graph) can
// be differentiated again, to any order the ops it uses reach. A rule without it
// stops such a sweep with an [*OrderError] that names the op and the order; the
// hand-written Pullback and PullbackWithTangents stay the fast path of gradients and
// Hessian-vector products.
//
// An op that is linear in its inputs, y = sum_k L_k x_k (a transpose, a slice, a
// concatenation, a sum), needs no rule code of its own: [LinearRule] and
// [UnaryLinearRule] build all the rules from L_k and its adjoint L_k^*, since
// ydot = sum_k L_k xdot_k, xbar_k = L_k^* ybar and xbardot_k = L_k^* ybardot, and
// the recorded pullback applies L_k^* as an op whose own rules are those of a
// linear op: linear ops reach every order.
//
// # Contract for rule authors
//
//   - Pullbacks never mutate their arguments nor the values they captured, never
//     retain the slices they are given, and may be called any number of times (a
//     persistent graph and the checker in testing/ruletest do so). The same holds
//     for Forward and PullbackWithTangents.
//   - A pullback returns exactly one contribution per differentiable input, shaped
//     like that input. An input used twice (y = x*x) may be named twice; the engine
//     adds the contributions.
//   - For complex values a pullback is the adjoint of the JVP under Re<a, b>. This is
//     PyTorch's convention (conjugate Wirtinger calculus): for holomorphic f,
//     xbar = conj(f'(x)) ybar.
//   - A rule that cannot do something returns an error wrapping one of the sentinel
//     errors of this package; it never returns zeros in place of an answer.
//   - Inputs and outputs that carry no derivative (indices, masks, pivots) are
//     declared with [PartialOp].
//
// A pullback that touches a few rows of a large input (an embedding lookup) can
// also give its terms row by row ([RowPullbackRule], with a [RowSpace]): the engine
// keeps those rows apart and builds a dense cotangent only where one is needed.
//
// A pullback can also hand the engine the sum of a cotangent it makes, and read
// the sum of the cotangent it is given ([SumPullbackRule], with a [SumSpace]):
// exp's pullback xbar_i = y_i ybar_i adds the xbar_i up in the same pass, and the
// difference x - a with a scalar a (x - max x) then gets abar = -sum_i dbar_i
// without a second pass over dbar. The engine keeps a sum only while it is bit
// for bit the sum of the value it came with.
//
// # Naming
//
// Op packages follow one scheme. An op without parameters is a variable named after
// it with the suffix Op (elementwise.ExpOp, nn.MatmulOp); an op with parameters is a
// constructor taking them (reduce.SumOp(axes, keepdim), einsum.Op(spec)); a
// package of one op may call it Op (einsum.Op, the softplus.Op of
// examples/customop). A function of the same name without the suffix evaluates it
// without a tape (elementwise.Exp(x), reduce.Sum(x, axes, keepdim)), through [Eval]
// or [EvalMulti].
//
// The one exception is package linalg, whose ops without parameters are also
// constructors, XxxOp() (linalg.SolveOp(), linalg.DetOp(), linalg.EighOp()), each
// call returning a new op; linalg's package doc says why.
//
// Each op package exports Register(reg), which adds its families to a [Registry]
// with [RegisterEntries]; package ops assembles the default registry.
//
// The engine lives in package core, the tensor value type in package tensor, and the
// rule checker in testing/ruletest.
package chainrules

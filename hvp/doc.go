// Package hvp gives function transforms over tensor functions — gradients, VJPs,
// JVPs, Hessian-vector and Gauss-Newton-vector products, dense Hessians and
// Jacobians — and adapters that let gonum's optimize package use them on parameter
// sets, including two Newton-CG methods that need only such products, progress
// recorders and objectives sharded over goroutines or machines.
//
// Where to start: write the function as a [Func] — it records its ops on a tape
// from the NodeIDs of its inputs and returns the NodeID of its output — and call
// [Grad] for its value and gradient, or [Eval] for its value alone (no gradients
// recorded). The ops are in packages elementwise, reduce, einsum, permute, index,
// nn and linalg (PyTorch's names: XxxOp, applied with t.Apply(op, inputs...)).
// Package core is the engine underneath (core.Tape) and package chainrules the
// protocol an op implements.
//
// A function is a [Func]: it records its computation on a tape from the NodeIDs of
// its inputs and returns the NodeID of its output, for example
//
//	f := func(t *core.Tape[*tensor.Dense], x []chainrules.NodeID) chainrules.NodeID {
//		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SinOp, x[0]))
//	}
//	grad, hv, err := hvp.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
//
// # Forward over reverse
//
// For a scalar f and a direction v, the Hessian-vector product is the directional
// derivative of the gradient:
//
//	H v = d/de grad f(x + e v) at e = 0.
//
// [HVP] computes it exactly with one recording of f and two sweeps of the engine: the
// forward sweep carries the tangent xdot = v to every node (core.Tape.ForwardTangents)
// and the second-order sweep carries each node's cotangent together with its tangent
// back to the inputs (core.Tape.BackwardWithTangents), through every rule's
// PullbackWithTangents. No finite differences and no second tape are involved; an op
// without a second-order rule makes HVP fail with an error wrapping
// chainrules.ErrHVPNotSupported that names the op. An [Operator] records f once and
// applies the Hessian to many vectors, as Krylov solvers do; [Operator.ApplyBatch]
// spreads a batch of independent products (the columns of [Hessian], k directions)
// over up to GOMAXPROCS goroutines, each with a recording of f of its own, with
// results bit-identical to the sequential loop ([Operator.Workers] and [WithWorkers]
// set the number of goroutines).
//
// # Nested transforms
//
// [GradOf] and [JVPOf] record on the caller's tape, so that transforms nest:
// hvp.Grad of a function of hvp.GradOf(f) (a gradient penalty), JVPOf(GradOf(f))
// (an HVP), a Hessian of a function of a gradient, the derivatives along a
// direction to any order ([DirectionalDerivatives]). They rest on the engine's
// recorded backward sweep (core.Tape.GradGraph), which every registered op supports
// to any order. [HVPRev] is the reverse-over-reverse HVP, beside the
// forward-over-reverse [HVP]. A value-level transform (Grad, HVP, ...) called inside
// a function another transform is recording returns [ErrNested] rather than a
// gradient the outer recording would see as a constant.
//
// # Parameter sets
//
// Every transform takes its inputs as one slice, a parameter set: tensors of any
// shapes, such as an MLP's weights and biases, in the spirit of JAX's pytrees. A
// [Layout] (LayoutOf(params)) defines the set's flat view — each tensor's elements
// in row-major order, one tensor after another — which is what gonum works on:
// [Hessian] and [Jacobian] are indexed by it, [Operator.ApplyFlat] takes and returns
// it, and an [Objective] over a Layout hands its Func views of gonum's point (one
// copy per new point, no tensor copies per call) and flattens gradients and products
// back into gonum's slices.
//
// # Precision
//
// A parameter set may be float32: gradients, VJPs, JVPs, HVPs, Gauss-Newton products
// and the Operator's products then run in float32, with directions, tangents and
// seeds in float32 and results in float32, as torch does for float32 tensors (the
// ops' single-precision paths; einsum's contractions run on float32 GEMM). The
// function must keep to its parameters' precision: a set whose tensors are all
// single precision and a function that returns float64 (it mixed float64 data, a
// constant or an op parameter, into the computation) is refused with an error
// wrapping chainrules.ErrInvalidArgument that names the dtypes, instead of
// differentiating in float64 and rounding; convert the data with tensor.AsType.
// A direction whose precision is not its parameter's is refused the same way. A
// set mixing float32 and float64 tensors follows tensor.PromoteTypes: the
// computation is float64 where a float64 tensor enters it, and each gradient has
// its parameter's dtype.
//
// gonum's optimize works in float64. An [Objective] over a float32 [Layout]
// (LayoutOf of float32 tensors, or NewLayoutOf(tensor.Float32, ...)) converts at that
// boundary: each new point is rounded to float32 tensors, f, its gradient and its
// products are evaluated in float32, and the results are widened back exactly into
// gonum's slices; gonum's line searches and Newton iterations run in float64 on
// them. Give Minimize a gradient threshold that float32 can reach (gonum's default
// of 1e-12 is far below float32's rounding), e.g. optimize.Settings{GradientThreshold:
// 1e-4}. [Hessian] and [Jacobian] of a float32 set are float64 matrices of float32
// products.
//
// # Second-order products
//
// Besides [HVP] for a scalar f, [HVPSeed] gives the HVP of Re<ybar, f(x)> for an f
// of any output (a seeded second-order sweep), and [GaussNewton] the Gauss-Newton
// product J^T H_L J v of an objective written as loss(model(x)), positive
// semi-definite for the losses of least squares and classification ([MSELoss],
// [CrossEntropyLoss], [BCEWithLogitsLoss]).
//
// # Optimisation
//
// [Objective] turns a function of a parameter set into gonum's optimize.Problem
// (Func, Grad, and a dense Hess built from HVPs for small problems); [NewObjective]
// takes one tensor, [NewParamObjective] a Layout, [NewModelObjective] a model and a
// loss (for Gauss-Newton curvature). [NewtonCG] (trust region, Steihaug-Toint
// conjugate gradients) and [LineSearchNewtonCG] (scipy's Newton-CG) are
// optimize.Methods that ask only for function values, gradients and curvature
// products — exact Hessian or Gauss-Newton, as their Curvature says. [Minimize] runs
// gonum with them wired to the objective, and never reports convergence after an
// evaluation error or a value, gradient or product that is not finite.
//
// A [Printer] (gonum's Printer with the Newton methods' own columns: trust radius or
// step size, CG iterations, products, rejected steps; a line per iteration or, for
// long runs, a progress line every ValueInterval) and a [Trace] (every [Iteration])
// are optimize.Recorders.
//
// # Sharded objectives
//
// An objective that is a sum over the shards of a dataset, f = sum_s f_s, is made by
// [NewShardedObjective] from shards ([Shard]): each local shard ([Transforms.NewShard])
// records its term on a tape of its own, and the shards of one evaluation run on
// goroutines of their own, so that values, gradients and HVPs use every core and are
// summed in shard order. A Shard is a small interface (Eval and HessVec on flat
// points), so a shard can also be evaluated elsewhere, in another process or on a
// cluster.
//
// # Registries
//
// Every transform records f on a tape that resolves its ops through an op registry
// (core.Tape.UseRegistry), so that overrides installed with SetOverride — custom
// gradients — apply. The package-level functions use the shared default registry,
// ops.Default, where an override is process-wide. [WithRegistry] binds the same
// transforms to a registry of the caller's, typically a fresh one from ops.New with
// an override installed that should stay local:
//
//	reg := ops.New()
//	if err := reg.SetOverride("relu", func(chainrules.Op[*tensor.Dense]) chainrules.Op[*tensor.Dense] { return elementwise.SiluOp }); err != nil {
//		panic(err)
//	}
//	grad, hv, err := hvp.WithRegistry(reg).HVP(f, x, v)
//
// An [Objective] made with WithRegistry(reg).NewObjective (or NewParamObjective,
// NewModelObjective, NewShard) records with reg in Func, Grad, Hess, HessVec and
// GaussNewtonVec, and so do the Newton methods given its products.
package hvp

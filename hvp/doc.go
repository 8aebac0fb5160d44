// Package hvp gives function transforms over tensor functions — gradients, VJPs,
// JVPs, Hessian-vector products, dense Hessians and Jacobians — and adapters that let
// gonum's optimize package use them, including a trust-region Newton-CG method that
// needs only Hessian-vector products.
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
// applies the Hessian to many vectors, as Krylov solvers do.
//
// # Optimisation
//
// [Objective] turns a function of one tensor into gonum's optimize.Problem (Func,
// Grad, and a dense Hess built from HVPs for small problems), and [NewtonCG] is an
// optimize.Method that minimises with trust-region Newton-CG (Steihaug-Toint
// conjugate gradients), asking only for function values, gradients and HVPs.
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
// An [Objective] made with WithRegistry(reg).NewObjective records with reg in Func,
// Grad, Hess and HessVec, and so does a [NewtonCG] given its HessVec.
package hvp

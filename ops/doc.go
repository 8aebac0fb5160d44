// Package ops assembles the op registry of the built-in tensor op families: every
// family of packages einsum, elementwise, index, permute, reduce, nn and linalg, each
// with its sample inputs for testing/ruletest.
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
// The op packages do not register anything on import; each exports a Register
// function that adds its families to a registry the caller owns, and this package
// calls them all:
//
//   - [New] returns a fresh registry with every built-in family. Use it in tests and
//     wherever a custom gradient (Registry.SetOverride) should stay local to the
//     tapes that are given that registry.
//   - [Default] returns the registry that package hvp uses unless told otherwise. It
//     is built once and shared by the whole process, so an override installed on it
//     applies to every tape and every hvp transform that uses it, in every goroutine.
//   - [RegisterAll] adds the built-in families to a registry of the caller's, for
//     example one that also holds families of the caller's own.
//
// A registry only matters to a tape created with core.Tape.UseRegistry (Apply
// resolves each op through the registry's overrides) and to the rule checker
// (ruletest.CheckRegistry runs every family at its samples). An op can always be
// applied without one.
package ops

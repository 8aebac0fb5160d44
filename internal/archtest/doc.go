// Package archtest pins the architecture of the module. Its tests fail when a
// package imports another that the layering does not allow, or when a package
// appears that the layering does not place (imports_test.go, whose allowed table is
// the rule); when ARCHITECTURE.md at the module root no longer draws that table
// (archdoc_test.go); when an op package leaves the naming scheme of the chainrules
// package doc (naming_test.go); and when a Go snippet of a doc comment or of the
// README is not compiled code (docs_test.go), or when a Go block of the README does
// not build on its own (readme_build_test.go, which states the convention for
// fragments). The layers, from the bottom; a package
// imports only packages on lower lines, and of those only the ones allowed lists:
//
//	internal/race                                 whether the race detector is on (no imports)
//	chainrules   internal/vmath                   the protocol; vector kernels, buffer pool, parallel schedule
//	internal/gemm                                 the GEMM kernels (on vmath's schedule)
//	tensor       core                             the value type; the engine (generic: never tensor)
//	tensor/opkit                                  helpers for op authors: input checks, axes and lanes, widening
//	linalg/internal/lapack                        linalg's LAPACK-style kernels on raw slices (tensor.Gemm)
//	einsum elementwise index permute reduce       primitive ops: rules by hand on tensor (no core)
//	nn   linalg                                   ops built on core and the primitive ops (neither imports the other)
//	ops                                           the registry of every built-in op family
//	hvp                                           transforms (ops; nn for Gauss-Newton; elementwise, reduce for nesting)
//	optim                                         optimisers, schedules, clipping, batches (tensor only; never hvp)
//	testing/ruletest   testing/oracle             checkers (chainrules, core; oracle: tensor)
//	internal/recordtest                           test helpers of the op packages' tests (core, tensor, ruletest, primitive ops)
//	examples/...   cmd/...                        programs: anything
//
// Only tensor imports internal/gemm: every matrix product goes through
// tensor.GemmBatch. Only ops knows the list of op packages: it assembles the
// registry from their Register functions. No package imports internal/recordtest:
// only _test.go files do (the recorded-pullback recipes their tests share).
package archtest

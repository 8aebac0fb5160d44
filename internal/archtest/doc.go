// Package archtest pins the import graph of the module: its test fails when a
// package imports another that the layering does not allow, or when a package
// appears that the layering does not place. The layers, from the bottom:
//
//	chainrules, internal/vmath, internal/gemm   the protocol and the kernels
//	tensor                                      the value type
//	core                                        the engine (generic: never tensor)
//	einsum elementwise index permute reduce     primitive ops: rules by hand
//	nn linalg                                   ops built on core and the primitive ops
//	ops                                         the default registry
//	hvp, testing/ruletest, testing/oracle       transforms and checkers
//	examples/...                                programs: anything
package archtest

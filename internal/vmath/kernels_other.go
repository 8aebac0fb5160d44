//go:build !amd64 || noasm

package vmath

// asmKernels returns no implementation: this build has no assembly.
func asmKernels() []*kernels { return nil }

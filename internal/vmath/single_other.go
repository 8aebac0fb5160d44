//go:build !amd64 || noasm

package vmath

// asmKernels32 returns no implementation: this build has no assembly.
func asmKernels32() []*kernels32 { return nil }

// expHalfBlocks32 leaves the tail to the Go loop.
func expHalfBlocks32(dst, x []float32) int { return 0 }

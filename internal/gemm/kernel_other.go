//go:build !amd64 || noasm

package gemm

// asmKernels returns no kernel: this build has no assembly.
func asmKernels() []*kernel { return nil }

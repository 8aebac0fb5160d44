//go:build !amd64 || noasm

package gemm

// asmKernels returns no kernel: this build has no assembly.
func asmKernels() []*kernel[float64] { return nil }

// asmKernels32 returns no kernel: this build has no assembly.
func asmKernels32() []*kernel[float32] { return nil }

// packRows8Asm does nothing: this build has no assembly.
func packRows8Asm[R float](dst []R, stride int, a []R, off, lda, kb int) int { return 0 }

// packRows4Asm does nothing: this build has no assembly.
func packRows4Asm(dst []float64, stride int, a []float64, off, lda, kb int) int { return 0 }

// packAcrossAsm does nothing: this build has no assembly.
func packAcrossAsm[R float](dst []R, w int, x []R, ld, rows, kb int) bool { return false }

// packAcrossRowsAsm does nothing: this build has no assembly.
func packAcrossRowsAsm[R float](dst []R, w int, x []R, ld, panels, kb int) bool { return false }

// directRun does nothing: this build has no assembly.
func directRun[R float](kn *kernel[R], m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) bool {
	return false
}

// complexKernel32 returns nil: Cgemm runs on the float32 kernel (1m embedding).
func complexKernel32(kn *kernel[float32]) *kernel[float32] { return nil }

// scaleC64Asm does nothing: this build has no assembly.
func scaleC64Asm(s []float32, alpha complex64) int { return 0 }

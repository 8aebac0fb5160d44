//go:build !amd64 || noasm

package gemm

// directReal does nothing: this build has no assembly.
func directReal[R float](kn *kernel[R], transA, transB bool, m, n, k int, alpha R, a []R, lda int, b []R, ldb int, beta R, c []R, ldc int) bool {
	return false
}

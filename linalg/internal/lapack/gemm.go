package lapack

import "github.com/chainrules-go/chainrules/tensor"

// Gemm computes C = alpha op(A) op(B) + beta C on row-major float64 slices.
func Gemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if err := tensor.Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err) // the callers pass consistent sizes: a failure is a bug here
	}
}

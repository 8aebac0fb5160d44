package gemm

import "runtime"

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for float32 matrices, with the
// shapes, strides, argument checks and beta == 0 rule of [Dgemm] (the
// conventions of gonum's blas32). Products accumulate in float32 (with fused
// multiply-adds in the assembly kernels), in the order of [Dgemm]: per element
// of C, k is cut into blocks of KC, each summed in one register lane, and the
// blocks are added to C one after another; the error bound tested is
// |C - C_exact| <= γ_{k+4} (|alpha| Σ_p |op(A)_ip||op(B)_pj| + |beta||C_ij|)
// with γ_n = n u/(1 - n u), u = 2^-24.
//
// A product of at least parallelMin multiply-adds is split over GOMAXPROCS
// goroutines; SgemmOn sets that number.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	SgemmOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmOn is Sgemm split over at most workers goroutines, as DgemmOn is Dgemm.
func SgemmOn(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	realGemmOn(kern32, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

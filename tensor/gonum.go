package tensor

import (
	"math/cmplx"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS is gonum's pure-Go BLAS (gonum.org/v1/gonum/blas/gonum.Implementation) with
// its general matrix products
//
//	C = alpha op(A) op(B) + beta C   (Dgemm, Zgemm)
//
// running on the project's packed AVX2 / AVX-512 kernels (and on plain loops for
// matrix-vector shapes), as with [GemmBatch] when [UseBLAS64] is off. Every other
// routine is gonum's. BLAS implements blas.Float64 and blas.Complex128, so
//
//	blas64.Use(tensor.BLAS{})
//	cblas128.Use(tensor.BLAS{})
//
// puts those kernels under every gonum package that calls blas64.Implementation():
// mat's products, and gonum's LAPACK (lapack64, lapack/gonum), whose blocked
// factorisations spend most of their time in Dgemm.
//
// Dgemm and Zgemm keep the contract of gonum's methods: the same results up to
// rounding, C not read when beta is zero, A and B not read when alpha is zero or k
// is 0, and the same panics, with gonum's messages, for invalid arguments (an
// unknown blas.Transpose, a negative size, a leading dimension smaller than a row,
// a slice too short). For float64, blas.ConjTrans means blas.Trans.
//
// BLAS never consults UseBLAS64 (it would recurse once installed with blas64.Use
// while UseBLAS64 is on), so the two can be combined freely.
type BLAS struct {
	gonum.Implementation
}

var (
	_ blas.Float64    = BLAS{}
	_ blas.Complex128 = BLAS{}
)

// Dgemm computes C = alpha op(A) op(B) + beta C for row-major float64 matrices,
// where op(X) is X for blas.NoTrans and X^T for blas.Trans or blas.ConjTrans; op(A)
// is m×k, op(B) is k×n and C is m×n, with leading dimensions lda, ldb and ldc. It
// panics like gonum.Implementation.Dgemm on invalid arguments.
func (impl BLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if checkGonumGemm(impl.Implementation.Dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		gemmNative(runtime.GOMAXPROCS(0), tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// Zgemm computes C = alpha op(A) op(B) + beta C for row-major complex128 matrices,
// where op(X) is X for blas.NoTrans, the transpose X^T for blas.Trans and the
// conjugate transpose X^H for blas.ConjTrans; shapes and leading dimensions are
// those of Dgemm. A conjugated operand is first copied, conjugated, to a scratch
// matrix (O(k(m+n)) work against the product's O(mnk)). It panics like
// gonum.Implementation.Zgemm on invalid arguments.
func (impl BLAS) Zgemm(tA, tB blas.Transpose, m, n, k int, alpha complex128, a []complex128, lda int, b []complex128, ldb int, beta complex128, c []complex128, ldc int) {
	if !checkGonumGemm(impl.Implementation.Zgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	if k > 0 && alpha != 0 {
		if tA == blas.ConjTrans {
			a, lda = conjCopy(k, m, a, lda)
		}
		if tB == blas.ConjTrans {
			b, ldb = conjCopy(n, k, b, ldb)
		}
	}
	gemmNative(runtime.GOMAXPROCS(0), tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmFunc is the signature of gonum's general matrix product: Dgemm for T =
// float64, Zgemm for T = complex128.
type gemmFunc[T Element] func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

// checkGonumGemm reports whether the product C = alpha op(A) op(B) + beta C, on
// arguments that gonum's gemm accepts (validGemm), has elements to compute: m, n >
// 0. Other arguments it passes to gonumGemm, gonum's own method, which panics on
// exactly those with its own message.
func checkGonumGemm[T Element](gonumGemm gemmFunc[T], tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) bool {
	if !validGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonumGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return false
	}
	return m > 0 && n > 0
}

// conjCopy returns the elementwise conjugate of the rows×cols matrix x (leading
// dimension ld) as a tight row-major matrix, and its leading dimension.
func conjCopy(rows, cols int, x []complex128, ld int) ([]complex128, int) {
	out := make([]complex128, rows*cols)
	for i := range rows {
		row := x[i*ld : i*ld+cols]
		for j, v := range row {
			out[i*cols+j] = cmplx.Conj(v)
		}
	}
	return out, max(cols, 1)
}

// validGemm reports whether gonum's Dgemm and Zgemm accept these arguments (slice
// lengths in elements): it is their checks, in the same terms, so that BLAS panics
// exactly where they do.
func validGemm(tA, tB blas.Transpose, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) bool {
	for _, t := range [2]blas.Transpose{tA, tB} {
		if t != blas.NoTrans && t != blas.Trans && t != blas.ConjTrans {
			return false
		}
	}
	if m < 0 || n < 0 || k < 0 {
		return false
	}
	rowA, colA := m, k
	if tA != blas.NoTrans {
		rowA, colA = k, m
	}
	rowB, colB := k, n
	if tB != blas.NoTrans {
		rowB, colB = n, k
	}
	if lda < max(1, colA) || ldb < max(1, colB) || ldc < max(1, n) {
		return false
	}
	if m == 0 || n == 0 {
		return true
	}
	return lenA >= (rowA-1)*lda+colA && lenB >= (rowB-1)*ldb+colB && lenC >= (m-1)*ldc+n
}

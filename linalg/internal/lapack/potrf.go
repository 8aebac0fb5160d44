package lapack

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// potrfF64 factors the symmetric positive-definite n×n matrix a (lower triangle
// read) in place as L L^T, leaving L in the lower triangle (the strict upper
// triangle holds intermediate values). It reports success.
func potrfF64(a []float64, n int) bool {
	if useLAPACK64.Load() {
		_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Data: a, Stride: n})
		return ok
	}
	buf := vmath.MakeNoZero[float64]((n / 2) * (n - n/2))
	ok := cholRec(a, n, n, buf)
	vmath.Put(buf)
	return ok
}

// cholRec is the recursive Cholesky factorisation of the lower triangle:
//
//	L11 = chol(A11),  L21 = A21 L11^-T,  A22 -= L21 L21^T,  L22 = chol(A22),
//
// with the solve through trsmPar (on a transposed copy of A21) and the update
// through GEMMs on the lower block triangle of A22 (cholUpdate). buf is scratch
// space (grown as needed).
func cholRec(a []float64, lda, n int, buf []float64) bool {
	if n <= cholBase {
		return cholBlock(a, lda, n)
	}
	n1 := n / 2
	n2 := n - n1
	if !cholRec(a, lda, n1, buf) {
		return false
	}
	a21 := a[n1*lda:]
	// L21 = A21 L11^-T: L11 X^T = A21^T on the transpose.
	if cap(buf) < n1*n2 {
		buf = make([]float64, n1*n2)
	}
	t := buf[:n1*n2]
	transpose(t, n2, a21, lda, n2, n1)
	trsmPar(false, false, false, n1, n2, a, lda, t, n2)
	transpose(a21, lda, t, n2, n1, n2)
	a22 := a[n1*lda+n1:]
	cholUpdate(a21, a22, lda, n1, n2)
	return cholRec(a22, lda, n2, buf)
}

// cholUpdate computes A22 -= L21 L21^T on the lower block triangle of the n2×n2
// matrix a22, L21 being the n2×n1 matrix a21 (both with leading dimension lda), in
// row blocks of cholRows (lowerBlocks): the block of rows [r, r+h) is one GEMM
// over columns [0, r+h).
func cholUpdate(a21, a22 []float64, lda, n1, n2 int) {
	lowerBlocks(n2, n1, cholRows, func(workers, r, h int) {
		gemmOn(workers, false, true, h, r+h, n1, -1, a21[r*lda:], lda, a21, lda, 1, a22[r*lda:], lda)
	})
}

// transpose sets dst[j*ldd+i] = src[i*lds+j] for i < rows, j < cols, by tiles of
// 16x16, whose rows on either side are two cache lines: a column of dst written
// element by element (the rows of src in turn) touches a line per element, and at
// row strides of a power of two those lines fall into few sets of the cache, which
// made the two transposes of the Cholesky panel a quarter of its time at n = 512.
func transpose(dst []float64, ldd int, src []float64, lds, rows, cols int) {
	transposeTiled(dst, ldd, src, lds, rows, cols, 16)
}

// cholBlock is the unblocked Cholesky factorisation of the lower triangle of an
// n×n block with leading dimension lda (dot products of rows).
func cholBlock(a []float64, lda, n int) bool {
	for j := range n {
		rj := a[j*lda : j*lda+j]
		d := a[j*lda+j] - level1.Ddot(j, rj, 1, rj, 1)
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*lda+j] = d
		for i := j + 1; i < n; i++ {
			ri := a[i*lda : i*lda+j]
			a[i*lda+j] = (a[i*lda+j] - level1.Ddot(j, ri, 1, rj, 1)) / d
		}
	}
	return true
}

// Potrf factors the Hermitian positive-definite n×n matrix a in place as L L^H,
// reading the lower triangle, and zeroes the strict upper triangle. It returns 0 on
// success, and otherwise the order (1-based) of the first leading minor that is not
// positive-definite, computed from orig (the matrix before the call; a is then
// clobbered).
func Potrf[T scalar](a, orig []T, n int) int {
	if f, ok := any(a).([]float64); ok && n > 0 {
		if !potrfF64(f, n) {
			c := make([]T, len(orig))
			copy(c, orig)
			return max(1, cholUnblocked(c, n))
		}
	} else if bad := cholUnblocked(a, n); bad > 0 {
		return bad
	}
	for i := range n {
		clear(a[i*n+i+1 : i*n+n])
	}
	return 0
}

// cholUnblocked is the unblocked Cholesky factorisation of the lower triangle (the
// row-major form of LAPACK's xPOTF2). It returns the failing order or 0.
func cholUnblocked[T scalar](a []T, n int) int {
	for j := range n {
		rj := a[j*n : j*n+j]
		d := Re(a[j*n+j])
		for _, v := range rj {
			d -= Re(v * Conj(v))
		}
		if !(d > 0) {
			return j + 1
		}
		d = math.Sqrt(d)
		a[j*n+j] = FromReal[T](d)
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+j]
			s := a[i*n+j]
			for k, v := range ri {
				s -= v * Conj(rj[k])
			}
			a[i*n+j] = s * FromReal[T](inv)
		}
	}
	return 0
}

package linalg

import (
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/chainrules-go/chainrules/tensor"
)

// The package's own float64 factorisation kernels: recursive (cache-oblivious)
// Cholesky, LU with partial pivoting and triangular solves whose flops are almost
// all matrix products through tensor.Gemm (the project's packed AVX2 / AVX-512
// GEMM), with gonum's assembly level-1 routines in the small base cases. They
// follow LAPACK's algorithms (xPOTRF, xGETRF with the same pivot choices, xTRSM) in
// a recursive order, so results agree with LAPACK's up to rounding.

// useLAPACK64 routes the float64 Cholesky, LU and triangular-solve kernels through
// lapack64 and blas64 instead.
var useLAPACK64 atomic.Bool

// UseLAPACK64 routes the float64 factorisations of the package through gonum's
// lapack64 and blas64 when on is true: Cholesky, LU and triangular solves
// (Dpotrf, Dgetrf, Dtrsm), QR (Dgeqrf, Dorgqr), eigh (Dsyev) and svd (Dgesvd), so
// that an implementation installed with lapack64.Use or blas64.Use (a cgo binding
// of OpenBLAS or MKL, say) computes them. By default they run on the package's own
// kernels, which do their matrix products with tensor.Gemm (recursive Cholesky, LU
// and triangular solves, blocked QR, and for eigh and svd of matrices larger than
// 48 blocked reductions); only small eigh and svd, the fallbacks of the larger
// ones, and eig and eigvals (Dgeev), call lapack64 then. The complex128 kernels
// are the package's own either way. The setting is process-wide and safe for concurrent use; it returns nothing
// and takes effect for the factorisations that start after it.
func UseLAPACK64(on bool) { useLAPACK64.Store(on) }

// level1 is gonum's BLAS, for its assembly level-1 routines (no global state).
var level1 gonumblas.Implementation

const (
	trsmBase = 16 // size of the unblocked base case of the triangular solve
	cholBase = 32 // ... of the Cholesky factorisation
	luBase   = 8  // columns of the unblocked base case of the LU panel
)

// gemm computes C = alpha op(A) op(B) + beta C on row-major float64 slices.
func gemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if err := tensor.Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err) // the callers pass consistent sizes: a failure is a bug here
	}
}

// trsmF64 solves op(T) X = B in place for the n×n triangle T of a (leading
// dimension lda; upper or lower, unit diagonal if unit) and B n×k (ldb), with
// op(T) = T^T when trans is set.
func trsmF64(upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
	if n == 0 || k == 0 {
		return
	}
	if useLAPACK64.Load() {
		ul, tb, d := blas.Lower, blas.NoTrans, blas.NonUnit
		if upper {
			ul = blas.Upper
		}
		if trans {
			tb = blas.Trans
		}
		if unit {
			d = blas.Unit
		}
		blas64.Implementation().Dtrsm(blas.Left, ul, tb, d, n, k, 1, a, lda, b, ldb)
		return
	}
	trsmRec(upper, trans, unit, n, k, a, lda, b, ldb)
}

// trsmRec is the recursive triangular solve: op(T) is lower triangular when
// upper == trans, and then
//
//	X1 = op(T11)^-1 B1,  B2 -= op(T)21 X1,  X2 = op(T22)^-1 B2
//
// (the mirror image when op(T) is upper), the update being one GEMM.
func trsmRec(upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
	if n <= trsmBase {
		trsmUnblocked(upper, trans, unit, n, k, a, lda, b, ldb)
		return
	}
	n1 := n / 2
	n2 := n - n1
	a22 := a[n1*lda+n1:]
	b1, b2 := b, b[n1*ldb:]
	if upper == trans { // op(T) lower: forward
		trsmRec(upper, trans, unit, n1, k, a, lda, b1, ldb)
		if trans { // op(T)21 = (T12)^T, T12 = a[0:n1, n1:n]
			gemm(true, false, n2, k, n1, -1, a[n1:], lda, b1, ldb, 1, b2, ldb)
		} else { // T21 = a[n1:n, 0:n1]
			gemm(false, false, n2, k, n1, -1, a[n1*lda:], lda, b1, ldb, 1, b2, ldb)
		}
		trsmRec(upper, trans, unit, n2, k, a22, lda, b2, ldb)
		return
	}
	trsmRec(upper, trans, unit, n2, k, a22, lda, b2, ldb)
	if trans { // op(T)12 = (T21)^T, T21 = a[n1:n, 0:n1]
		gemm(true, false, n1, k, n2, -1, a[n1*lda:], lda, b2, ldb, 1, b1, ldb)
	} else { // T12 = a[0:n1, n1:n]
		gemm(false, false, n1, k, n2, -1, a[n1:], lda, b2, ldb, 1, b1, ldb)
	}
	trsmRec(upper, trans, unit, n1, k, a, lda, b1, ldb)
}

// trsmUnblocked is the row-oriented substitution: each row of X is its row of B
// minus multiples of the rows already solved, divided by the diagonal.
func trsmUnblocked(upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
	at := func(i, j int) float64 { // op(T)[i, j]
		if trans {
			return a[j*lda+i]
		}
		return a[i*lda+j]
	}
	row := func(i, lo, hi int) {
		bi := b[i*ldb : i*ldb+k]
		for j := lo; j < hi; j++ {
			if t := at(i, j); t != 0 {
				level1.Daxpy(k, -t, b[j*ldb:j*ldb+k], 1, bi, 1)
			}
		}
		if !unit {
			level1.Dscal(k, 1/a[i*lda+i], bi, 1)
		}
	}
	if upper == trans {
		for i := range n {
			row(i, 0, i)
		}
		return
	}
	for i := n - 1; i >= 0; i-- {
		row(i, i+1, n)
	}
}

// potrfF64 factors the symmetric positive-definite n×n matrix a (lower triangle
// read) in place as L L^T, leaving L in the lower triangle (the strict upper
// triangle holds intermediate values). It reports success.
func potrfF64(a []float64, n int) bool {
	if useLAPACK64.Load() {
		_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Data: a, Stride: n})
		return ok
	}
	return cholRec(a, n, n, make([]float64, (n/2)*(n-n/2)))
}

// cholRec is the recursive Cholesky factorisation of the lower triangle:
//
//	L11 = chol(A11),  L21 = A21 L11^-T,  A22 -= L21 L21^T,  L22 = chol(A22),
//
// with the solve through trsmRec (on a transposed copy of A21) and the update
// through GEMMs on the lower block triangle of A22. buf is scratch space (grown as
// needed).
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
	for i := range n2 {
		row := a21[i*lda : i*lda+n1]
		for j, v := range row {
			t[j*n2+i] = v
		}
	}
	trsmRec(false, false, false, n1, n2, a, lda, t, n2)
	for i := range n2 {
		row := a21[i*lda : i*lda+n1]
		for j := range row {
			row[j] = t[j*n2+i]
		}
	}
	// A22 -= L21 L21^T on the lower block triangle, in row blocks.
	a22 := a[n1*lda+n1:]
	const rb = 64
	for r := 0; r < n2; r += rb {
		h := min(rb, n2-r)
		gemm(false, true, h, r+h, n1, -1, a21[r*lda:], lda, a21, lda, 1, a22[r*lda:], lda)
	}
	return cholRec(a22, lda, n2, buf)
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

// getrfF64 factors the m×n matrix a (leading dimension n) in place as P L U with
// partial pivoting, as LAPACK's Dgetrf (the same pivots: the first entry of
// largest magnitude), writing the zero-based pivots to piv. It returns the index
// of the first zero pivot, or -1.
func getrfF64(a []float64, m, n int, piv []int) int {
	if useLAPACK64.Load() {
		if lapack64.Getrf(blas64.General{Rows: m, Cols: n, Data: a, Stride: n}, piv) {
			return -1
		}
		for j := range min(m, n) {
			if a[j*n+j] == 0 {
				return j
			}
		}
		return -1
	}
	luRec(a, n, m, min(m, n), piv, 0, make([]float64, m*min(luBase, n)))
	// A panel narrower than the matrix leaves its right part (columns k..n-1 of a
	// wide matrix) to be finished: the recursion covers columns 0..k-1 only.
	if k := min(m, n); n > k {
		// Rows 0..k-1 of the right part: apply the swaps, then U12 = L11^-1 A12.
		right := a[k:]
		swapRows(right, n, n-k, piv, 0, k)
		trsmRec(false, false, true, k, n-k, a, n, right, n)
	}
	for j := range min(m, n) {
		if a[j*n+j] == 0 {
			return j
		}
	}
	return -1
}

// luRec factors the m×w panel of a (leading dimension lda) with partial pivoting
// (Toledo's recursive LU): factor the left half, apply its swaps to the right half,
// U12 = L11^-1 A12, A22 -= A21 U12 (one GEMM), factor A22, apply its swaps to the
// left half. piv[j] receives the zero-based row (relative to the panel) swapped
// with row j; off is added to the recorded pivots. buf is luPanel's scratch (m *
// min(luBase, w) values).
func luRec(a []float64, lda, m, w int, piv []int, off int, buf []float64) {
	if w <= luBase {
		luPanel(a, lda, m, w, piv, off, buf)
		return
	}
	w1 := w / 2
	w2 := w - w1
	luRec(a, lda, m, w1, piv, off, buf)
	right := a[w1:]
	swapRows(right, lda, w2, piv, off, w1)
	trsmRec(false, false, true, w1, w2, a, lda, right, lda)
	if m > w1 {
		gemm(false, false, m-w1, w2, w1, -1, a[w1*lda:], lda, right, lda, 1, a[w1*lda+w1:], lda)
		luRec(a[w1*lda+w1:], lda, m-w1, w2, piv[w1:], off+w1, buf)
		// The swaps of the lower right factorisation apply to the left columns too.
		swapRows(a[w1*lda:], lda, w1, piv[w1:], off+w1, w2)
	}
}

// swapRows applies the row interchanges piv[0..count) (relative to off) to the
// first cols columns of a.
func swapRows(a []float64, lda, cols int, piv []int, off, count int) {
	for j := range count {
		if p := piv[j] - off; p != j {
			swapSlices(a[j*lda:j*lda+cols], a[p*lda:p*lda+cols])
		}
	}
}

// luPanel is the unblocked LU factorisation with partial pivoting of an m×w panel
// (LAPACK's Dgetf2): pivot search down the column, swap, scale, rank-one update of
// the panel's remaining columns. The panel (w <= luBase columns, each a strided
// column of a row-major matrix) is factored in a column-major copy, where the pivot
// search and the updates run down contiguous columns of length m, and then copied
// back; buf holds the copy (at least m*w values).
func luPanel(a []float64, lda, m, w int, piv []int, off int, buf []float64) {
	buf = buf[:m*w]
	for i := range m {
		for c, v := range a[i*lda : i*lda+w] {
			buf[c*m+i] = v
		}
	}
	for j := range min(m, w) {
		col := buf[j*m : (j+1)*m]
		p := j + level1.Idamax(m-j, col[j:], 1)
		piv[j] = p + off
		if p != j {
			level1.Dswap(w, buf[j:], m, buf[p:], m)
		}
		d := col[j]
		if d == 0 {
			continue
		}
		level1.Dscal(m-j-1, 1/d, col[j+1:], 1)
		for c := j + 1; c < w; c++ {
			cc := buf[c*m : (c+1)*m]
			if u := cc[j]; u != 0 {
				level1.Daxpy(m-j-1, -u, col[j+1:], 1, cc[j+1:], 1)
			}
		}
	}
	for i := range m {
		row := a[i*lda : i*lda+w]
		for c := range row {
			row[c] = buf[c*m+i]
		}
	}
}

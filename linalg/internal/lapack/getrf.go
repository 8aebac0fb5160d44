package lapack

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

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
		trsmPar(false, false, true, k, n-k, a, n, right, n)
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
// U12 = L11^-1 A12 (trsmPar), A22 -= A21 U12 (one GEMM, gemmRows), factor A22,
// apply its swaps to the left half. piv[j] receives the zero-based row (relative
// to the panel) swapped with row j; off is added to the recorded pivots. buf is
// luPanel's scratch (m * min(luBase, w) values).
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
	trsmPar(false, false, true, w1, w2, a, lda, right, lda)
	if m > w1 {
		gemmRows(m-w1, w2, w1, -1, a[w1*lda:], lda, right, lda, 1, a[w1*lda+w1:], lda)
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

// Getrf factors the m×n matrix a in place as P L U with partial pivoting (LAPACK's
// xGETRF): L unit lower trapezoidal below the diagonal, U upper trapezoidal on and
// above it, and piv[j] (zero-based) the row swapped with row j at step j. It returns
// the index of the first zero pivot (U[j,j] == 0), or -1.
func Getrf[T scalar](a []T, m, n int, piv []int) int {
	if f, ok := any(a).([]float64); ok {
		if m == 0 || n == 0 {
			return -1
		}
		return getrfF64(f, m, n, piv)
	}
	zero := -1
	for j := range min(m, n) {
		p, best := j, -1.0
		for i := j; i < m; i++ {
			if v := abs1(a[i*n+j]); v > best {
				p, best = i, v
			}
		}
		piv[j] = p
		if p != j {
			swapSlices(a[j*n:j*n+n], a[p*n:p*n+n])
		}
		d := a[j*n+j]
		if d == 0 {
			if zero < 0 {
				zero = j
			}
			continue
		}
		inv := 1 / d
		rj := a[j*n+j+1 : j*n+n]
		for i := j + 1; i < m; i++ {
			a[i*n+j] *= inv
			l := a[i*n+j]
			if l == 0 {
				continue
			}
			ri := a[i*n+j+1 : i*n+n]
			for k, u := range rj {
				ri[k] -= l * u
			}
		}
	}
	return zero
}

// abs1 is LAPACK's pivot magnitude: |x| for float64, |Re x| + |Im x| for
// complex128 (izamax), so that the generic LU pivots exactly as LAPACK does.
func abs1[T scalar](x T) float64 {
	if c, ok := any(x).(complex128); ok {
		return math.Abs(real(c)) + math.Abs(imag(c))
	}
	return Abs(x)
}

// swapSlices exchanges the elements of x and y (of equal length), as BLAS's
// xSWAP: a row interchange of the LU factorisations.
func swapSlices[T any](x, y []T) {
	for i := range x {
		x[i], y[i] = y[i], x[i]
	}
}

package lapack

import (
	"math"
	"runtime"

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
	if min(m, n) >= luLookMin {
		luLookAhead(a, m, n, piv)
	} else {
		luRec(a, n, m, min(m, n), piv, 0, make([]float64, m*min(luBase, n)), true)
		// A panel narrower than the matrix leaves its right part (columns k..n-1
		// of a wide matrix) to be finished: the recursion covers columns 0..k-1
		// only.
		if k := min(m, n); n > k {
			// Rows 0..k-1 of the right part: apply the swaps, then U12 = L11^-1 A12.
			right := a[k:]
			swapRows(right, n, n-k, piv, 0, k)
			trsmPar(false, false, true, k, n-k, a, n, right, n)
		}
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
// luPanel's scratch (m * min(luBase, w) values). With par unset, everything runs
// on the calling goroutine (a panel of luLookAhead, beside the trailing update on
// the other goroutines); the factors are the same bit for bit either way.
func luRec(a []float64, lda, m, w int, piv []int, off int, buf []float64, par bool) {
	if w <= luBase {
		luPanel(a, lda, m, w, piv, off, buf)
		return
	}
	w1 := w / 2
	w2 := w - w1
	luRec(a, lda, m, w1, piv, off, buf, par)
	right := a[w1:]
	swapRows(right, lda, w2, piv, off, w1)
	if par {
		trsmPar(false, false, true, w1, w2, a, lda, right, lda)
	} else {
		trsmRec(1, false, false, true, w1, w2, a, lda, right, lda)
	}
	if m > w1 {
		if par {
			gemmRows(m-w1, w2, w1, -1, a[w1*lda:], lda, right, lda, 1, a[w1*lda+w1:], lda)
		} else {
			gemmOn(1, false, false, m-w1, w2, w1, -1, a[w1*lda:], lda, right, lda, 1, a[w1*lda+w1:], lda)
		}
		luRec(a[w1*lda+w1:], lda, m-w1, w2, piv[w1:], off+w1, buf, par)
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

const (
	// luNB is the width of the panels of luLookAhead.
	luNB = 64
	// luChunk is the width of the column blocks of its trailing updates.
	luChunk = 192
	// luLookMin is the least min(m, n) that luLookAhead factors; smaller
	// matrices go to the recursion alone.
	luLookMin = 4 * luNB
)

// luLookAhead factors the m×n matrix a (leading dimension n) as getrfF64 does, by
// right-looking blocked LU with look-ahead (as LAPACK implementations scale it):
// panels of luNB columns, each factored by the recursion (luRec) on one
// goroutine. After panel j is factored, one step computes, as the tasks of one
// vmath.Each on GOMAXPROCS goroutines,
//
//	task 0:  the update of panel j+1 by panel j, then the factorisation of panel j+1
//	task c:  the update of the c-th block of luChunk columns right of panel j+1
//
// where the update of columns C by panel j (rows j.., width jb) is: its row swaps,
// U[j:j+jb, C] = L11^-1 A[j:j+jb, C], A[j+jb:, C] -= L21 U[j:j+jb, C]. The next
// panel's factorisation, serial, so runs beside the bulk of the trailing update
// instead of after it, and the goroutines take the tasks as they become free: one
// on a busy core takes fewer. The tasks, their blocks and every product in them
// (on one goroutine each) are the same for any GOMAXPROCS, so the factors are the
// same bit for bit on one goroutine or several. At the end the swaps of each
// panel are applied to the columns left of it.
func luLookAhead(a []float64, m, n int, piv []int) {
	k := min(m, n)
	buf := make([]float64, m*luBase) // luPanel's scratch, for the serial panels
	// update applies panel j (width jb) to the columns [c0, c1).
	update := func(j, jb, c0, c1 int) {
		swapRows(a[j*n+c0:], n, c1-c0, piv[j:], j, jb)
		trsmRec(1, false, false, true, jb, c1-c0, a[j*n+j:], n, a[j*n+c0:], n)
		if m > j+jb {
			gemmOn(1, false, false, m-j-jb, c1-c0, jb, -1, a[(j+jb)*n+j:], n, a[j*n+c0:], n, 1, a[(j+jb)*n+c0:], n)
		}
	}
	luRec(a, n, m, min(luNB, k), piv, 0, buf, false)
	workers := runtime.GOMAXPROCS(0)
	for j := 0; j < k; j += luNB {
		jb := min(luNB, k-j)
		next := j + jb // the next panel: columns [next, rest)
		rest := min(next+luNB, k)
		chunks := ceilDiv(n-rest, luChunk)
		if n-rest > 0 && chunks > 1 && n-rest-(chunks-1)*luChunk < luChunk/2 {
			chunks-- // a narrow last block goes to the one before
		}
		forEach(1+chunks, workers, func(t int) {
			if t == 0 {
				if next < k {
					update(j, jb, next, rest)
					luRec(a[next*n+next:], n, m-next, rest-next, piv[next:], next, buf, false)
				}
				return
			}
			c0 := rest + (t-1)*luChunk
			c1 := min(c0+luChunk, n)
			if t == chunks {
				c1 = n
			}
			update(j, jb, c0, c1)
		})
	}
	// The swaps of each panel apply to the columns left of it.
	for j := luNB; j < k; j += luNB {
		swapRows(a[j*n:], n, j, piv[j:], j, min(luNB, k-j))
	}
}

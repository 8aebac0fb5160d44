package linalg

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The package's per-matrix kernels. Matrices are row-major with leading dimension
// equal to their number of columns. float64 matrices go through gonum's LAPACK
// (lapack64, so a native implementation installed with lapack64.Use takes over) or
// the package's blocked kernels; complex128 matrices through the unblocked generic
// kernels below, which follow LAPACK's algorithms and conventions.

// getrf factors the m×n matrix a in place as P L U with partial pivoting (LAPACK's
// xGETRF): L unit lower trapezoidal below the diagonal, U upper trapezoidal on and
// above it, and piv[j] (zero-based) the row swapped with row j at step j. It returns
// the index of the first zero pivot (U[j,j] == 0), or -1.
func getrf[T scalar](a []T, m, n int, piv []int) int {
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
	return abs(x)
}

// swapSlices exchanges the elements of x and y (of equal length), as BLAS's
// xSWAP: a row interchange of the LU factorisations.
func swapSlices[T any](x, y []T) {
	for i := range x {
		x[i], y[i] = y[i], x[i]
	}
}

// laswp applies the row interchanges piv (from getrf, zero-based) to the rows×cols
// matrix b: forward (k = 0, 1, ...) or backward.
func laswp[T scalar](b []T, cols int, piv []int, forward bool) {
	swap := func(k int) {
		if p := piv[k]; p != k {
			swapSlices(b[k*cols:k*cols+cols], b[p*cols:p*cols+cols])
		}
	}
	if forward {
		for k := range piv {
			swap(k)
		}
		return
	}
	for k := len(piv) - 1; k >= 0; k-- {
		swap(k)
	}
}

// transKind selects op(A) in the triangular and LU solves.
type transKind int

const (
	noTrans   transKind = iota // A
	trans                      // A^T
	conjTrans                  // A^H
)

// getrs solves op(A) X = B in place in the n×nrhs matrix b, from the factors of
// getrf (A = P L U).
func getrs[T scalar](lu []T, n int, piv []int, b []T, nrhs int, tr transKind) {
	if n == 0 || nrhs == 0 {
		return
	}
	if tr == noTrans {
		laswp(b, nrhs, piv, true)
		trsm(lu, n, b, nrhs, false, noTrans, true)
		trsm(lu, n, b, nrhs, true, noTrans, false)
		return
	}
	trsm(lu, n, b, nrhs, true, tr, false)
	trsm(lu, n, b, nrhs, false, tr, true)
	laswp(b, nrhs, piv, false)
}

// trsm solves op(T) X = B in place in the n×nrhs matrix b, where T is the upper or
// lower triangle of the n×n matrix a (with a unit diagonal when unit is set; the
// other triangle is never read).
func trsm[T scalar](a []T, n int, b []T, nrhs int, upper bool, tr transKind, unit bool) {
	if n == 0 || nrhs == 0 {
		return
	}
	if f, ok := any(a).([]float64); ok {
		trsmF64(upper, tr != noTrans, unit, n, nrhs, f, n, any(b).([]float64), nrhs)
		return
	}
	// op(T) is lower triangular when (upper and transposed) or (lower and not).
	at := func(i, k int) T { // op(T)[i, k]
		switch tr {
		case trans:
			return a[k*n+i]
		case conjTrans:
			return cj(a[k*n+i])
		}
		return a[i*n+k]
	}
	lower := upper == (tr != noTrans)
	row := func(i int) {
		ri := b[i*nrhs : i*nrhs+nrhs]
		lo, hi := 0, i
		if !lower {
			lo, hi = i+1, n
		}
		for k := lo; k < hi; k++ {
			l := at(i, k)
			if l == 0 {
				continue
			}
			rk := b[k*nrhs : k*nrhs+nrhs]
			for j, v := range rk {
				ri[j] -= l * v
			}
		}
		if !unit {
			inv := 1 / at(i, i)
			for j := range ri {
				ri[j] *= inv
			}
		}
	}
	if lower {
		for i := range n {
			row(i)
		}
		return
	}
	for i := n - 1; i >= 0; i-- {
		row(i)
	}
}

// potrf factors the Hermitian positive-definite n×n matrix a in place as L L^H,
// reading the lower triangle, and zeroes the strict upper triangle. It returns 0 on
// success, and otherwise the order (1-based) of the first leading minor that is not
// positive-definite, computed from orig (the matrix before the call; a is then
// clobbered).
func potrf[T scalar](a, orig []T, n int) int {
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
		d := re(a[j*n+j])
		for _, v := range rj {
			d -= re(v * cj(v))
		}
		if !(d > 0) {
			return j + 1
		}
		d = math.Sqrt(d)
		a[j*n+j] = fromReal[T](d)
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+j]
			s := a[i*n+j]
			for k, v := range ri {
				s -= v * cj(rj[k])
			}
			a[i*n+j] = s * fromReal[T](inv)
		}
	}
	return 0
}

// symEig computes the eigenvalues (ascending, into w) and, when vectors is set, the
// orthonormal eigenvectors (into the columns of a) of the symmetric n×n matrix a
// (lower triangle read). It reports whether the algorithm converged.
func symEig(a, w []float64, n int, vectors bool) bool {
	if n == 0 {
		return true
	}
	if n > eigSmall && !useLAPACK64.Load() {
		if !vectors {
			// Dsterf, which Dsyev would run too on the same tridiagonal matrix.
			return symEigTridiag(a, w, n, false)
		}
		orig := slices.Clone(a)
		if symEigTridiag(a, w, n, vectors) {
			return true
		}
		// Neither divide and conquer nor inverse iteration gave the vectors:
		// fall back to the QR algorithm.
		copy(a, orig)
	}
	job := lapack.EVNone
	if vectors {
		job = lapack.EVCompute
	}
	sym := blas64.Symmetric{Uplo: blas.Lower, N: n, Data: a, Stride: n}
	work := []float64{0}
	lapack64.Syev(job, sym, w, work, -1)
	work = make([]float64, int(work[0]))
	return lapack64.Syev(job, sym, w, work, len(work))
}

// svdKernel computes the thin SVD of the m×n matrix a (clobbered): the singular
// values into s (descending), and, when vectors is set, U (m×k) into u and V^T
// (k×n) into vt, k = min(m, n). It reports whether the algorithm converged.
func svdKernel(a []float64, m, n int, s, u, vt []float64, vectors bool) bool {
	k := min(m, n)
	if !useLAPACK64.Load() {
		if vectors && k > svdSmall && svdFast(a, m, n, s, u, vt) || !vectors && k > svdValuesSmall && svdValuesFast(a, m, n, s) {
			return true
		}
	}
	ga := blas64.General{Rows: m, Cols: n, Data: a, Stride: n}
	gu := blas64.General{Rows: m, Cols: k, Data: u, Stride: max(k, 1)}
	gv := blas64.General{Rows: k, Cols: n, Data: vt, Stride: max(n, 1)}
	job := lapack.SVDStore
	if !vectors {
		job = lapack.SVDNone
		gu.Stride, gv.Stride = 1, 1
	}
	work := []float64{0}
	lapack64.Gesvd(job, job, ga, gu, gv, s, work, -1)
	work = make([]float64, int(work[0]))
	return lapack64.Gesvd(job, job, ga, gu, gv, s, work, len(work))
}

// qrKernel computes the reduced QR decomposition of the m×n matrix a (clobbered):
// Q (m×k) into q and R (k×n) into r, k = min(m, n). It is LAPACK's blocked xGEQRF
// (panels by gonum's Dgeqr2, the trailing matrix updated in compact WY form on
// tensor.Gemm) and Q formed by applying the reflectors to the identity; with
// UseLAPACK64 it calls lapack64's Geqrf and Orgqr.
func qrKernel(a []float64, m, n int, q, r []float64) {
	k := min(m, n)
	tau := make([]float64, k)
	if useLAPACK64.Load() {
		ga := blas64.General{Rows: m, Cols: n, Data: a, Stride: n}
		work := []float64{0}
		lapack64.Geqrf(ga, tau, work, -1)
		work = make([]float64, max(int(work[0]), 1))
		lapack64.Geqrf(ga, tau, work, len(work))
	} else {
		const nb = 32
		work := make([]float64, nb)
		for j0 := 0; j0 < k; j0 += nb {
			kb := min(nb, k-j0)
			lapackGonum.Dgeqr2(m-j0, kb, a[j0*n+j0:], n, tau[j0:j0+kb], work)
			if j0+kb < n {
				applyReflectors(a[j0*n+j0+kb:], n, m-j0, n-j0-kb, a[j0*n+j0:], n, kb, 0, tau[j0:j0+kb], true, true)
			}
		}
	}
	for i := range k {
		copy(r[i*n+i:i*n+n], a[i*n+i:i*n+n])
	}
	if useLAPACK64.Load() {
		for i := range m {
			copy(q[i*k:i*k+k], a[i*n:i*n+k])
		}
		gq := blas64.General{Rows: m, Cols: k, Data: q, Stride: k}
		work := []float64{0}
		lapack64.Orgqr(gq, tau, work, -1)
		work = make([]float64, max(int(work[0]), 1))
		lapack64.Orgqr(gq, tau, work, len(work))
		return
	}
	clear(q[:m*k])
	for i := range k {
		q[i*k+i] = 1
	}
	applyReflectors(q, k, m, k, a, n, k, 0, tau, true, false)
}

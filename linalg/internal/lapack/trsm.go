package lapack

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TrsmF64 solves op(T) X = B in place for the n×n triangle T of a (leading
// dimension lda; upper or lower, unit diagonal if unit) and B n×k (ldb), with
// op(T) = T^T when trans is set.
func TrsmF64(upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
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
	trsmPar(upper, trans, unit, n, k, a, lda, b, ldb)
}

// trsmRec is the recursive triangular solve: op(T) is lower triangular when
// upper == trans, and then
//
//	X1 = op(T11)^-1 B1,  B2 -= op(T)21 X1,  X2 = op(T22)^-1 B2
//
// (the mirror image when op(T) is upper), the update being one GEMM on at most
// workers goroutines.
func trsmRec(workers int, upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
	if n <= trsmBase {
		trsmUnblocked(upper, trans, unit, n, k, a, lda, b, ldb)
		return
	}
	n1 := n / 2
	n2 := n - n1
	a22 := a[n1*lda+n1:]
	b1, b2 := b, b[n1*ldb:]
	if upper == trans { // op(T) lower: forward
		trsmRec(workers, upper, trans, unit, n1, k, a, lda, b1, ldb)
		if trans { // op(T)21 = (T12)^T, T12 = a[0:n1, n1:n]
			gemmOn(workers, true, false, n2, k, n1, -1, a[n1:], lda, b1, ldb, 1, b2, ldb)
		} else { // T21 = a[n1:n, 0:n1]
			gemmOn(workers, false, false, n2, k, n1, -1, a[n1*lda:], lda, b1, ldb, 1, b2, ldb)
		}
		trsmRec(workers, upper, trans, unit, n2, k, a22, lda, b2, ldb)
		return
	}
	trsmRec(workers, upper, trans, unit, n2, k, a22, lda, b2, ldb)
	if trans { // op(T)12 = (T21)^T, T21 = a[n1:n, 0:n1]
		gemmOn(workers, true, false, n1, k, n2, -1, a[n1*lda:], lda, b2, ldb, 1, b1, ldb)
	} else { // T12 = a[0:n1, n1:n]
		gemmOn(workers, false, false, n1, k, n2, -1, a[n1:], lda, b2, ldb, 1, b1, ldb)
	}
	trsmRec(workers, upper, trans, unit, n1, k, a, lda, b1, ldb)
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

// Trsm solves op(T) X = B in place in the n×nrhs matrix b, where T is the upper or
// lower triangle of the n×n matrix a (with a unit diagonal when unit is set; the
// other triangle is never read).
func Trsm[T scalar](a []T, n int, b []T, nrhs int, upper bool, tr TransKind, unit bool) {
	if n == 0 || nrhs == 0 {
		return
	}
	if f, ok := any(a).([]float64); ok {
		TrsmF64(upper, tr != NoTrans, unit, n, nrhs, f, n, any(b).([]float64), nrhs)
		return
	}
	// op(T) is lower triangular when (upper and transposed) or (lower and not).
	at := func(i, k int) T { // op(T)[i, k]
		switch tr {
		case Trans:
			return a[k*n+i]
		case ConjTrans:
			return Conj(a[k*n+i])
		}
		return a[i*n+k]
	}
	lower := upper == (tr != NoTrans)
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

package lapack

import "runtime"

// laswp applies the row interchanges piv (from Getrf, zero-based) to the rows×cols
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

// TransKind selects op(A) in the triangular and LU solves.
type TransKind int

const (
	NoTrans   TransKind = iota // A
	Trans                      // A^T
	ConjTrans                  // A^H
)

// Getrs solves op(A) X = B in place in the n×nrhs matrix b, from the factors of
// Getrf (A = P L U).
func Getrs[T scalar](lu []T, n int, piv []int, b []T, nrhs int, tr TransKind) {
	if n == 0 || nrhs == 0 {
		return
	}
	if f, ok := any(lu).([]float64); ok && !useLAPACK64.Load() {
		getrsF64(f, n, piv, any(b).([]float64), nrhs, tr != NoTrans)
		return
	}
	if tr == NoTrans {
		laswp(b, nrhs, piv, true)
		Trsm(lu, n, b, nrhs, false, NoTrans, true)
		Trsm(lu, n, b, nrhs, true, NoTrans, false)
		return
	}
	Trsm(lu, n, b, nrhs, true, tr, false)
	Trsm(lu, n, b, nrhs, false, tr, true)
	laswp(b, nrhs, piv, false)
}

// getrsF64 is Getrs for float64 on the package's kernels: the right-hand sides are
// cut into blocks of columns as trsmPar cuts them, and each block goes through the
// row interchanges and both triangular solves (trsmRec) on one goroutine, so that
// a solve is one parallel region instead of two and each block stays in its
// core's cache between the solves. Each column's solution is its own, so the
// result is the same bit for bit for any blocks.
func getrsF64(lu []float64, n int, piv []int, b []float64, k int, trans bool) {
	solve := func(workers, lo, hi int) {
		c := b[lo:]
		w := hi - lo
		if !trans {
			swapRows(c, k, w, piv, 0, n)
			trsmRec(workers, false, false, true, n, w, lu, n, c, k)
			trsmRec(workers, true, false, false, n, w, lu, n, c, k)
			return
		}
		trsmRec(workers, true, true, false, n, w, lu, n, c, k)
		trsmRec(workers, false, true, true, n, w, lu, n, c, k)
		for j := n - 1; j >= 0; j-- {
			if p := piv[j]; p != j {
				swapSlices(c[j*k:j*k+w], c[p*k:p*k+w])
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	half := max(1, n*n/2)
	cols := roundUp(max(splitCols, ceilDiv(partMin, half)), splitCols)
	parts := min(2*workers, k/cols)
	if workers < 2 || parts < 2 || 2*half*k < splitMin {
		solve(workers, 0, k)
		return
	}
	width, parts := blocksOf(k, parts, splitCols)
	forEach(parts, workers, func(p int) {
		lo, hi := blockRange(p, parts, width, k)
		solve(1, lo, hi)
	})
}

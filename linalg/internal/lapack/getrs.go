package lapack

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

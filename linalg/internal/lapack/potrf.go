package lapack

import (
	"math"
	"runtime"
	"sync/atomic"

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
	if n >= cholLookMin {
		return cholLookAhead(a, n)
	}
	buf := vmath.MakeNoZero[float64]((n / 2) * (n - n/2))
	ok := cholRec(a, n, n, buf, true)
	vmath.Put(buf)
	return ok
}

const (
	// cholNB is the width of the panels of cholLookAhead.
	cholNB = 96
	// cholChunk is the height of the row blocks of its trailing updates.
	cholChunk = 96
	// cholLookMin is the least order that cholLookAhead factors; smaller
	// matrices go to the recursion alone.
	cholLookMin = 256
)

// cholLookAhead factors a as potrfF64 does, by right-looking blocked Cholesky
// with look-ahead (as luLookAhead): panels of cholNB columns, panel j being
//
//	L[j:j+jb, j:j+jb] = chol(A[j:j+jb, j:j+jb]) (cholRec),
//	L[j+jb:, j:j+jb] = A[j+jb:, j:j+jb] L[j:j+jb, j:j+jb]^-T (cholPanelSolve),
//
// each on one goroutine. After panel j is factored, one step computes, as the
// tasks of one vmath.Each on GOMAXPROCS goroutines,
//
//	task 0:  the update of panel j+1 by panel j (A[j+jb:, C] -= L21 L[C, j:j+jb]^T
//	         for its columns C), then the factorisation of panel j+1
//	task r:  the update of the lower triangle of the r-th last block of cholChunk
//	         rows below panel j+1, over the columns right of panel j+1
//
// (the largest row blocks, at the bottom, first; each by products of cholRows rows,
// so that a block computes little of the upper triangle). The tasks, their blocks and every
// product (on one goroutine each) are the same for any GOMAXPROCS, so the factor is
// the same bit for bit on one goroutine or several. It reports success.
func cholLookAhead(a []float64, n int) bool {
	buf := make([]float64, (n-cholNB)*cholNB) // the transposed panel of cholPanelSolve
	rbuf := vmath.MakeNoZero[float64](cholNB / 2 * (cholNB - cholNB/2))
	defer vmath.Put(rbuf)
	// panel factors the panel of columns [j, j+jb).
	panel := func(j, jb int) bool {
		if !cholRec(a[j*n+j:], n, jb, rbuf, false) {
			return false
		}
		cholPanelSolve(a[j*n+j:], n, jb, n-j-jb, buf)
		return true
	}
	// update subtracts L[r0:r1, j:j+jb] L[c0:c1, j:j+jb]^T from A[r0:r1, c0:c1].
	update := func(j, jb, r0, r1, c0, c1 int) {
		gemmOn(1, false, true, r1-r0, c1-c0, jb, -1, a[r0*n+j:], n, a[c0*n+j:], n, 1, a[r0*n+c0:], n)
	}
	if !panel(0, min(cholNB, n)) {
		return false
	}
	workers := runtime.GOMAXPROCS(0)
	var failed atomic.Bool
	for j := 0; j < n; j += cholNB {
		jb := min(cholNB, n-j)
		next := j + jb // the next panel: columns [next, rest)
		rest := min(next+cholNB, n)
		blocks := ceilDiv(n-rest, cholChunk)
		forEach(1+blocks, workers, func(t int) {
			if t == 0 {
				if next < n {
					update(j, jb, next, n, next, rest)
					if !panel(next, rest-next) {
						failed.Store(true)
					}
				}
				return
			}
			// Row block blocks-t (the last, largest, first): rows [r0, r1), by
			// products of cholRows rows over the columns up to their last, so
			// that little of the upper triangle is computed.
			r0 := rest + (blocks-t)*cholChunk
			r1 := min(r0+cholChunk, n)
			for r := r0; r < r1; r += cholRows {
				h := min(cholRows, r1-r)
				update(j, jb, r, r+h, rest, r+h)
			}
		})
		if failed.Load() {
			return false
		}
	}
	return true
}

// cholPanelSolve sets L21 = A21 L11^-T for the rows×w block A21 below the
// factored w×w diagonal block L11 at a (leading dimension lda), as cholRec does:
// L11 X^T = A21^T on a transposed copy in buf (trsmRec on one goroutine).
func cholPanelSolve(a []float64, lda, w, rows int, buf []float64) {
	if rows == 0 {
		return
	}
	a21 := a[w*lda:]
	t := buf[:w*rows]
	transpose(t, rows, a21, lda, rows, w)
	trsmRec(1, false, false, false, w, rows, a, lda, t, rows)
	transpose(a21, lda, t, rows, w, rows)
}

// cholRec is the recursive Cholesky factorisation of the lower triangle:
//
//	L11 = chol(A11),  L21 = A21 L11^-T,  A22 -= L21 L21^T,  L22 = chol(A22),
//
// with the solve through trsmPar (on a transposed copy of A21) and the update
// through GEMMs on the lower block triangle of A22 (cholUpdate). buf is scratch
// space (grown as needed). With par unset, everything runs on the calling
// goroutine (a panel of cholLookAhead); the factor is the same bit for bit either
// way.
func cholRec(a []float64, lda, n int, buf []float64, par bool) bool {
	if n <= cholBase {
		return cholBlock(a, lda, n)
	}
	n1 := n / 2
	n2 := n - n1
	if !cholRec(a, lda, n1, buf, par) {
		return false
	}
	a21 := a[n1*lda:]
	// L21 = A21 L11^-T: L11 X^T = A21^T on the transpose.
	if cap(buf) < n1*n2 {
		buf = make([]float64, n1*n2)
	}
	t := buf[:n1*n2]
	transpose(t, n2, a21, lda, n2, n1)
	if par {
		trsmPar(false, false, false, n1, n2, a, lda, t, n2)
	} else {
		trsmRec(1, false, false, false, n1, n2, a, lda, t, n2)
	}
	transpose(a21, lda, t, n2, n1, n2)
	a22 := a[n1*lda+n1:]
	cholUpdate(a21, a22, lda, n1, n2, par)
	return cholRec(a22, lda, n2, buf, par)
}

// cholUpdate computes A22 -= L21 L21^T on the lower block triangle of the n2×n2
// matrix a22, L21 being the n2×n1 matrix a21 (both with leading dimension lda), in
// row blocks of cholRows (lowerBlocks, or in turn on the calling goroutine with par
// unset): the block of rows [r, r+h) is one GEMM over columns [0, r+h).
func cholUpdate(a21, a22 []float64, lda, n1, n2 int, par bool) {
	block := func(workers, r, h int) {
		gemmOn(workers, false, true, h, r+h, n1, -1, a21[r*lda:], lda, a21, lda, 1, a22[r*lda:], lda)
	}
	if par {
		lowerBlocks(n2, n1, cholRows, block)
		return
	}
	for r := 0; r < n2; r += cholRows {
		block(1, r, min(cholRows, n2-r))
	}
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

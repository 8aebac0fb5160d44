package lapack

import (
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The symmetric eigensolver for larger matrices: A = Q T Q^T by blocked Householder
// tridiagonalisation (sytrdLower, as LAPACK's xSYTRD); without vectors the
// eigenvalues of T by the Pal-Walker-Kahan QR algorithm (Dsterf) on each unreduced
// block (xSYEV's path); with vectors, the eigenvalues and eigenvectors of T by
// divide and conquer (stedc.go, xSTEDC), or, should a secular equation not
// converge, Dsterf and inverse iteration (xSTEIN: tridiagonal LU with partial
// pivoting, reorthogonalisation within clusters); then V = Q Z by blocked
// reflector products. The O(n^3) work is the reduction, the merges' products and
// V = Q Z; gonum's Dsteqr, which applies every QR rotation to the n×n eigenvector
// matrix, spends most of its time there.

// eigSmall is the size up to which SymEig uses Dsyev directly.
const eigSmall = 48

// symEigTridiag computes the eigen-decomposition of the symmetric n×n matrix a
// (lower triangle read) into w (ascending) and, with vectors, the columns of a.
func symEigTridiag(a, w []float64, n int, vectors bool) bool {
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	sytrdLower(a, n, d, e, tau)
	var z []float64
	if vectors {
		z = make([]float64, n*n)
		// Divide and conquer; if a secular equation does not converge, inverse
		// iteration.
		if !tridiagEigDC(d, e, w, z) && !tridiagEig(d, e, w, z) {
			return false
		}
	} else if !tridiagEig(d, e, w, nil) {
		return false
	}
	if vectors {
		// V = Q Z, applying the reflectors to Z: Q = H_0 H_1 ... H_{n-2} holds the
		// reflectors of sytrdLower (v_i[i+1] = 1, v_i[i+2:] in column i of a).
		applyReflectors(z, n, n, n, a, n, n-1, 1, tau, true, false)
		copy(a, z)
	}
	return true
}

// tridiagEig computes the eigenvalues w (ascending) of the n×n symmetric
// tridiagonal matrix with diagonal d and subdiagonal e (both clobbered) by Dsterf
// (sterf, its form with one division per step on the critical path) on each
// unreduced block and, when z is not nil, its eigenvectors into the columns of the
// n×n matrix z by inverse iteration (stein). It reports success.
func tridiagEig(d, e, w, z []float64) bool {
	n := len(d)
	vectors := z != nil
	blocks := splitTridiag(d, e)
	type eig struct {
		v     float64
		block int
	}
	eigs := make([]eig, 0, n)
	for bi, b := range blocks {
		bd := slices.Clone(d[b[0]:b[1]])
		be := slices.Clone(e[b[0] : b[1]-1])
		if !sterf(len(bd), bd, be) {
			return false
		}
		for _, v := range bd {
			eigs = append(eigs, eig{v, bi})
		}
	}
	sort.SliceStable(eigs, func(i, j int) bool { return eigs[i].v < eigs[j].v })
	for i, ev := range eigs {
		w[i] = ev.v
	}
	if !vectors {
		return true
	}
	// Z: the eigenvectors of T, column j for w[j]; stein writes them as the rows
	// of zt.
	zt := make([]float64, n*n)
	for bi, b := range blocks {
		var vals []float64
		var cols []int
		for j, ev := range eigs {
			if ev.block == bi {
				vals = append(vals, ev.v)
				cols = append(cols, j)
			}
		}
		if !stein(d[b[0]:b[1]], e[b[0]:b[1]-1], vals, zt, n, b[0], cols) {
			return false
		}
	}
	Transpose(z, zt, n, n)
	return true
}

// SymEig computes the eigenvalues (ascending, into w) and, when vectors is set, the
// orthonormal eigenvectors (into the columns of a) of the symmetric n×n matrix a
// (lower triangle read). It reports whether the algorithm converged.
func SymEig(a, w []float64, n int, vectors bool) bool {
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

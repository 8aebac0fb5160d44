package lapack

import (
	"slices"

	"gonum.org/v1/gonum/lapack"
)

// The complex Hermitian eigensolver (LAPACK's zheev arranged as the real path):
// A = Q T Q^H with T real symmetric tridiagonal by complex Householder reflections
// (zhetd2, unblocked, lower), the eigen-decomposition T = Z diag(w) Z^T by the real
// tridiagonal machinery of syev.go and stein.go (Dsteqr's QR iterations for n <= eigSmall,
// Dsterf and inverse iteration beyond, Dsteqr as the fallback), and V = Q Z.

// HermEig computes the eigenvalues w (ascending) and the eigenvectors (into the
// columns of a) of the Hermitian n×n matrix a (both triangles set, row-major). It
// reports success.
func HermEig(a []complex128, w []float64, n int) bool {
	switch n {
	case 0:
		return true
	case 1:
		w[0] = real(a[0])
		a[0] = 1
		return true
	}
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]complex128, n-1)
	refl := hetrdLower(a, n, d, e, tau)
	z := make([]float64, n*n)
	ok := false
	if n > eigSmall {
		ok = tridiagEig(slices.Clone(d), slices.Clone(e), w, z)
	}
	if !ok {
		if !lapackGonum.Dsteqr(lapack.EVTridiag, n, d, e, z, n, make([]float64, 2*n-2)) {
			return false
		}
		copy(w, d)
	}
	// V = Q Z = H_0 (H_1 (... (H_{n-2} Z))).
	for i, v := range z {
		a[i] = complex(v, 0)
	}
	s := make([]complex128, n)
	for i := n - 2; i >= 0; i-- {
		applyReflector(a, n, i+1, refl[i], tau[i], s)
	}
	return true
}

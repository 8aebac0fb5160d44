package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// reduceCases returns the test matrices of the reduction tests: random m×n, zero,
// and (square) diagonal, each also scaled by 2^±600.
func reduceCases(rng *rand.Rand, m, n int, symmetric bool) map[string][]float64 {
	r := randSlice(rng, m*n)
	if symmetric {
		for i := range n {
			for j := range i {
				r[j*n+i] = r[i*n+j]
			}
		}
	}
	cases := map[string][]float64{"random": r, "zero": make([]float64, m*n)}
	if m == n {
		diag := make([]float64, n*n)
		for i := range n {
			diag[i*n+i] = float64(n-i) - 0.5*float64(n)
		}
		cases["diagonal"] = diag
	}
	for _, sc := range []float64{0x1p600, 0x1p-600} {
		s := slices.Clone(r)
		for i := range s {
			s[i] *= sc
		}
		cases[fmt.Sprintf("random*%g", sc)] = s
	}
	return cases
}

// TestSytrdLower checks the blocked tridiagonal reduction: A = Q T Q^T with Q
// orthogonal, and T equal to gonum's unblocked Dsytd2 (same reflectors: the
// diagonal, and the subdiagonal up to rounding), for sizes around the block size
// (nb = 32, panels while more than 2nb columns remain).
func TestSytrdLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 3, 31, 32, 33, 64, 65, 66, 97, 131, 200} {
		for name, a := range reduceCases(rng, n, n, true) {
			scale := 0.0
			for _, v := range a {
				scale = math.Max(scale, math.Abs(v))
			}
			w := slices.Clone(a)
			for i := range n { // the strict upper triangle is never read
				for j := i + 1; j < n; j++ {
					w[i*n+j] = math.NaN()
				}
			}
			d, e, tau := make([]float64, n), make([]float64, max(n-1, 0)), make([]float64, max(n-1, 0))
			sytrdLower(w, n, d, e, tau)
			// Dsytd2 on a copy.
			ref := slices.Clone(a)
			dr, er, taur := make([]float64, n), make([]float64, max(n-1, 0)), make([]float64, max(n-1, 0))
			lapackGonum.Dsytd2(blas.Lower, n, ref, max(n, 1), dr, er, taur)
			tol := 1e-13 * float64(n) * math.Max(scale, 1e-300)
			for i := range n {
				if math.Abs(d[i]-dr[i]) > tol || (i < n-1 && math.Abs(e[i]-er[i]) > tol) {
					t.Fatalf("n=%d %s: T differs from Dsytd2's at %d: d %v/%v, e %v/%v", n, name, i, d[i], dr[i], e[i], er[i])
				}
			}
			if n < 2 {
				continue
			}
			// Q = H_0 ... H_{n-2} applied to I; A - Q T Q^T.
			q := make([]float64, n*n)
			for i := range n {
				q[i*n+i] = 1
			}
			applyReflectors(q, n, n, n, w, n, n-1, 1, tau, true, false)
			qt := make([]float64, n*n) // Q T
			for i := range n {
				for j := range n {
					s := q[i*n+j] * d[j]
					if j > 0 {
						s += q[i*n+j-1] * e[j-1]
					}
					if j < n-1 {
						s += q[i*n+j+1] * e[j]
					}
					qt[i*n+j] = s
				}
			}
			rec := make([]float64, n*n)
			gemm(false, true, n, n, n, 1, qt, n, q, n, 0, rec, n)
			qq := make([]float64, n*n)
			gemm(true, false, n, n, n, 1, q, n, q, n, 0, qq, n)
			for i := range n * n {
				if math.Abs(rec[i]-a[i]) > tol {
					t.Fatalf("n=%d %s: (Q T Q^T - A)[%d] = %g (scale %g)", n, name, i, rec[i]-a[i], scale)
				}
				id := 0.0
				if i%(n+1) == 0 {
					id = 1
				}
				if math.Abs(qq[i]-id) > 1e-13*float64(n) {
					t.Fatalf("n=%d %s: Q^T Q - I = %g at %d", n, name, qq[i]-id, i)
				}
			}
		}
	}
}

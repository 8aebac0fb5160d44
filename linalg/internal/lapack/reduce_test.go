package lapack

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
// orthogonal to 1e-13 n, and T close to gonum's unblocked Dsytd2's (the same
// reflectors; the entries of T are not well conditioned, so only to 1e-9 of
// ||A||), for sizes around the block size (nb = 32, panels while more than 2nb
// columns remain).
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
			loose := 1e-9 * math.Max(scale, 1e-300)
			for i := range n {
				if math.Abs(d[i]-dr[i]) > loose || (i < n-1 && math.Abs(e[i]-er[i]) > loose) {
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
			Gemm(false, true, n, n, n, 1, qt, n, q, n, 0, rec, n)
			qq := make([]float64, n*n)
			Gemm(true, false, n, n, n, 1, q, n, q, n, 0, qq, n)
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

// TestGebrdUpper checks the blocked bidiagonal reduction: A = Q [B; 0] P^T to
// 1e-13 m ||A||, and B close to gonum's unblocked Dgebd2's (the same reflectors;
// the entries of B are not well conditioned, so only to 1e-9 of ||A||), for
// square and tall matrices around the block size (nb = 32, panels while more than
// 2nb columns remain).
func TestGebrdUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range [][2]int{{1, 1}, {2, 2}, {3, 2}, {31, 31}, {33, 32}, {64, 64}, {65, 65}, {66, 66}, {97, 97}, {150, 70}, {200, 200}, {300, 131}} {
		m, n := sh[0], sh[1]
		for name, a := range reduceCases(rng, m, n, false) {
			scale := 0.0
			for _, v := range a {
				scale = math.Max(scale, math.Abs(v))
			}
			w := slices.Clone(a)
			d, e := make([]float64, n), make([]float64, max(n-1, 0))
			tauq, taup := make([]float64, n), make([]float64, n)
			gebrdUpper(w, n, m, n, d, e, tauq, taup)
			ref := slices.Clone(a)
			dr, er := make([]float64, n), make([]float64, max(n-1, 0))
			lapackGonum.Dgebd2(m, n, ref, n, dr, er, make([]float64, n), make([]float64, n), make([]float64, max(m, n)))
			tol := 1e-13 * float64(m) * math.Max(scale, 1e-300)
			loose := 1e-9 * math.Max(scale, 1e-300)
			for i := range n {
				if math.Abs(d[i]-dr[i]) > loose || (i < n-1 && math.Abs(e[i]-er[i]) > loose) {
					t.Fatalf("%dx%d %s: B differs from Dgebd2's at %d: d %v/%v, e %v/%v", m, n, name, i, d[i], dr[i], e[i], er[i])
				}
			}
			// Q [B; 0] P^T: Q applied to [B; 0], then P to its transpose.
			z := make([]float64, m*n)
			for i := range n {
				z[i*n+i] = d[i]
				if i < n-1 {
					z[i*n+i+1] = e[i]
				}
			}
			applyReflectors(z, n, m, n, w, n, n, 0, tauq, true, false)
			zt := make([]float64, n*m)
			Transpose(zt, z, m, n)
			applyReflectors(zt, m, n, m, w, n, n-1, 1, taup, false, false)
			for i := range m {
				for j := range n {
					if diff := zt[j*m+i] - a[i*n+j]; math.Abs(diff) > tol {
						t.Fatalf("%dx%d %s: (Q B P^T - A)[%d, %d] = %g (scale %g)", m, n, name, i, j, diff, scale)
					}
				}
			}
		}
	}
}

// TestSVDValuesFast compares svdValuesFast with gonum's Dgesvd (values only) for
// square, tall and wide matrices, scaled to the edges of the range, zero and rank
// deficient ones.
func TestSVDValuesFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sh := range [][2]int{{49, 49}, {70, 70}, {130, 70}, {70, 130}, {200, 200}} {
		m, n := sh[0], sh[1]
		k := min(m, n)
		cases := reduceCases(rng, m, n, false)
		b, c := randSlice(rng, m*3), randSlice(rng, 3*n)
		low := make([]float64, m*n)
		Gemm(false, false, m, n, 3, 1, b, 3, c, n, 0, low, n)
		cases["rank 3"] = low
		for name, a := range cases {
			orig := slices.Clone(a)
			s := make([]float64, k)
			if !svdValuesFast(a, m, n, s) {
				t.Fatalf("%dx%d %s: svdValuesFast failed", m, n, name)
			}
			if !slices.Equal(a, orig) {
				t.Fatalf("%dx%d %s: the input was modified", m, n, name)
			}
			sr := make([]float64, k)
			work := make([]float64, 8*(m+n)*(m+n))
			lapackGonum.Dgesvd('N', 'N', m, n, slices.Clone(a), n, sr, nil, 1, nil, 1, work, len(work))
			for i := range k {
				if math.Abs(s[i]-sr[i]) > 1e-13*float64(k)*sr[0] || math.IsNaN(s[i]) {
					t.Fatalf("%dx%d %s: s[%d] = %v, Dgesvd %v", m, n, name, i, s[i], sr[i])
				}
			}
		}
	}
}

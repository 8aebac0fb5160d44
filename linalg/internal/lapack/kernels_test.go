package lapack

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func maxRelDiff(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	return num / math.Max(den, 1e-300)
}

// TestOwnKernelsMatchLAPACK compares the recursive Cholesky, LU and triangular
// solves with gonum's Dpotrf, Dgetrf and Dtrsm: same pivots, results equal up to
// rounding, at sizes around the recursion's base cases and block splits.
func TestOwnKernelsMatchLAPACK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 16, 17, 33, 64, 65, 100, 130} {
		// Cholesky of B B^T + n I.
		b := randSlice(rng, n*n)
		a := make([]float64, n*n)
		Gemm(false, true, n, n, n, 1, b, n, b, n, 0, a, n)
		for i := range n {
			a[i*n+i] += float64(n)
		}
		own, ref := slices.Clone(a), slices.Clone(a)
		if !potrfF64(own, n) {
			t.Fatalf("n=%d: own Cholesky failed", n)
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Data: ref, Stride: n}); !ok {
			t.Fatalf("n=%d: Dpotrf failed", n)
		}
		lower := func(x []float64) []float64 {
			y := make([]float64, n*n)
			for i := range n {
				copy(y[i*n:i*n+i+1], x[i*n:i*n+i+1])
			}
			return y
		}
		if d := maxRelDiff(lower(own), lower(ref)); d > 1e-12 {
			t.Errorf("n=%d: Cholesky differs from Dpotrf by %g", n, d)
		}
		// Triangular solves, every variant, against Dtrsm.
		k := n/3 + 1
		for _, upper := range []bool{false, true} {
			for _, trans := range []bool{false, true} {
				for _, unit := range []bool{false, true} {
					tri := randSlice(rng, n*n)
					for i := range n {
						tri[i*n+i] += 4 * math.Copysign(1, tri[i*n+i])
					}
					rhs := randSlice(rng, n*k)
					got, want := slices.Clone(rhs), slices.Clone(rhs)
					trsmRec(1, upper, trans, unit, n, k, tri, n, got, k)
					ul, tb, dg := blas.Lower, blas.NoTrans, blas.NonUnit
					if upper {
						ul = blas.Upper
					}
					if trans {
						tb = blas.Trans
					}
					if unit {
						dg = blas.Unit
					}
					blas64.Implementation().Dtrsm(blas.Left, ul, tb, dg, n, k, 1, tri, n, want, k)
					if d := maxRelDiff(got, want); d > 1e-10 {
						t.Errorf("n=%d upper=%v trans=%v unit=%v: trsm differs from Dtrsm by %g", n, upper, trans, unit, d)
					}
				}
			}
		}
		// LU of square, tall and wide matrices.
		for _, m := range []int{n, n + 5, max(1, n/2)} {
			a := randSlice(rng, m*n)
			own, ref := slices.Clone(a), slices.Clone(a)
			pOwn, pRef := make([]int, min(m, n)), make([]int, min(m, n))
			if z := getrfF64(own, m, n, pOwn); z >= 0 {
				t.Fatalf("%dx%d: zero pivot %d", m, n, z)
			}
			lapack64.Getrf(blas64.General{Rows: m, Cols: n, Data: ref, Stride: n}, pRef)
			if !slices.Equal(pOwn, pRef) {
				t.Errorf("%dx%d: pivots %v, Dgetrf %v", m, n, pOwn, pRef)
			}
			if d := maxRelDiff(own, ref); d > 1e-10 {
				t.Errorf("%dx%d: LU differs from Dgetrf by %g", m, n, d)
			}
		}
	}
}

// TestSetLAPACK64 checks that the switch routes the kernels through lapack64 and
// back.
func TestSetLAPACK64(t *testing.T) {
	defer SetLAPACK64(false)
	a := []float64{4, 2, 2, 3}
	SetLAPACK64(true)
	x := slices.Clone(a)
	if !potrfF64(x, 2) || math.Abs(x[0]-2) > 1e-15 {
		t.Fatalf("lapack64 Cholesky: %v", x)
	}
	SetLAPACK64(false)
	y := slices.Clone(a)
	if !potrfF64(y, 2) || math.Abs(y[3]-math.Sqrt(2)) > 1e-15 {
		t.Fatalf("own Cholesky: %v", y)
	}
}

// TestSymEigTridiag checks the tridiagonal eigensolver (inverse iteration) against
// the defining identities and Dsyev's eigenvalues, on random matrices, matrices
// with repeated and clustered eigenvalues, and block-diagonal ones (split
// tridiagonal forms).
func TestSymEigTridiag(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 90
	// An orthogonal Q from the QR decomposition of a random matrix.
	randQ := func() []float64 {
		q := make([]float64, n*n)
		QR(randSlice(rng, n*n), n, n, q, make([]float64, n*n))
		return q
	}
	withSpectrum := func(w []float64) []float64 {
		q := randQ()
		qw := make([]float64, n*n)
		for i := range n {
			for j := range n {
				qw[i*n+j] = q[i*n+j] * w[j]
			}
		}
		a := make([]float64, n*n)
		Gemm(false, true, n, n, n, 1, qw, n, q, n, 0, a, n)
		for i := range n { // exactly symmetric
			for j := range i {
				a[i*n+j] = a[j*n+i]
			}
		}
		return a
	}
	cases := map[string][]float64{}
	r := randSlice(rng, n*n)
	sym := make([]float64, n*n)
	for i := range n {
		for j := range n {
			sym[i*n+j] = r[i*n+j] + r[j*n+i]
		}
	}
	cases["random"] = sym
	rep := make([]float64, n)
	for i := range rep {
		rep[i] = float64(i % 3) // three eigenvalues, each 30 times
	}
	cases["repeated"] = withSpectrum(rep)
	clus := make([]float64, n)
	for i := range clus {
		clus[i] = 1 + 1e-10*float64(i) // one tight cluster
	}
	cases["cluster"] = withSpectrum(clus)
	block := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if (i < n/2) == (j < n/2) {
				block[i*n+j] = sym[i*n+j]
			}
		}
	}
	cases["block diagonal"] = block
	diag := make([]float64, n*n)
	for i := range n {
		diag[i*n+i] = float64(n - i)
	}
	cases["diagonal"] = diag
	for name, a := range cases {
		v := slices.Clone(a)
		w := make([]float64, n)
		if !symEigTridiag(v, w, n, true) {
			t.Errorf("%s: inverse iteration did not converge", name)
			continue
		}
		wr := make([]float64, n)
		work := make([]float64, 4*n*n)
		lapack64.Syev(lapack.EVNone, blas64.Symmetric{Uplo: blas.Lower, N: n, Data: slices.Clone(a), Stride: n}, wr, work, len(work))
		norm := 0.0
		for _, x := range a {
			norm = math.Max(norm, math.Abs(x))
		}
		norm *= n
		for i := range w {
			if math.Abs(w[i]-wr[i]) > 1e-13*norm {
				t.Errorf("%s: eigenvalue %d is %v, Dsyev %v", name, i, w[i], wr[i])
				break
			}
		}
		av := make([]float64, n*n)
		Gemm(false, false, n, n, n, 1, a, n, v, n, 0, av, n)
		vtv := make([]float64, n*n)
		Gemm(true, false, n, n, n, 1, v, n, v, n, 0, vtv, n)
		res, orth := 0.0, 0.0
		for i := range n {
			for j := range n {
				res = math.Max(res, math.Abs(av[i*n+j]-v[i*n+j]*w[j]))
				o := vtv[i*n+j]
				if i == j {
					o--
				}
				orth = math.Max(orth, math.Abs(o))
			}
		}
		if res > 1e-12*norm || orth > 1e-12 {
			t.Errorf("%s: residual %g (norm %g), orthogonality %g", name, res, norm, orth)
		}
	}
}

// TestSVDFast checks the Golub-Kahan SVD against Dgesvd's singular values and the
// defining identities, for square, tall and wide matrices, and that it declines
// (so that Dgesvd runs) for a rank-deficient matrix.
func TestSVDFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][2]int{{70, 70}, {130, 70}, {70, 100}, {65, 65}} {
		m, n := sh[0], sh[1]
		k := min(m, n)
		a := randSlice(rng, m*n)
		s, u, vt := make([]float64, k), make([]float64, m*k), make([]float64, k*n)
		if !svdFast(a, m, n, s, u, vt) {
			t.Fatalf("%dx%d: svdFast declined a random matrix", m, n)
		}
		sr := make([]float64, k)
		work := make([]float64, 8*(m+n)*(m+n))
		lapack64.Gesvd(lapack.SVDNone, lapack.SVDNone, blas64.General{Rows: m, Cols: n, Data: slices.Clone(a), Stride: n},
			blas64.General{Stride: 1}, blas64.General{Stride: 1}, sr, work, len(work))
		if d := maxRelDiff(s, sr); d > 1e-13 {
			t.Errorf("%dx%d: singular values differ from Dgesvd by %g", m, n, d)
		}
		if m >= n && !svdCheck(a, m, n, s, u, vt) {
			t.Errorf("%dx%d: the result fails the identities", m, n)
		}
		// A = U S Vh.
		us := make([]float64, m*k)
		for i := range m {
			for j := range k {
				us[i*k+j] = u[i*k+j] * s[j]
			}
		}
		r := make([]float64, m*n)
		Gemm(false, false, m, n, k, 1, us, k, vt, n, 0, r, n)
		if d := maxRelDiff(r, a); d > 1e-12 {
			t.Errorf("%dx%d: U S Vh differs from A by %g", m, n, d)
		}
	}
	// Rank deficient: the fast path declines.
	const n = 60
	b := randSlice(rng, n*3)
	c := randSlice(rng, 3*n)
	a := make([]float64, n*n)
	Gemm(false, false, n, n, 3, 1, b, 3, c, n, 0, a, n)
	if svdFast(a, n, n, make([]float64, n), make([]float64, n*n), make([]float64, n*n)) {
		t.Error("svdFast accepted a rank-3 matrix")
	}
}

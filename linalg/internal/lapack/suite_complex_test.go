package lapack

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"
)

// The complex128 kernels have no counterpart in gonum (which has no complex
// LAPACK), so their part of the suite runs against the package's kernels alone:
// the same defining identities as the float64 checks, with conjugate transposes.

func crandSlice(rng *rand.Rand, n int) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	return x
}

// cmatMul returns the m×n product op(A) op(B) with inner dimension k, op(X) = X,
// X^T or X^H as ta, tb say.
func cmatMul(ta, tb TransKind, m, n, k int, a, b []complex128) []complex128 {
	at := func(i, l int) complex128 {
		switch ta {
		case Trans:
			return a[l*m+i]
		case ConjTrans:
			return cmplx.Conj(a[l*m+i])
		}
		return a[i*k+l]
	}
	bt := func(l, j int) complex128 {
		switch tb {
		case Trans:
			return b[j*k+l]
		case ConjTrans:
			return cmplx.Conj(b[j*k+l])
		}
		return b[l*n+j]
	}
	c := make([]complex128, m*n)
	for i := range m {
		for j := range n {
			var s complex128
			for l := range k {
				s += at(i, l) * bt(l, j)
			}
			c[i*n+j] = s
		}
	}
	return c
}

// crelErr returns max |got - want| / max(max |want|, 1).
func crelErr(got, want []complex128) float64 {
	d, s := 0.0, 1.0
	for i := range want {
		d = math.Max(d, cmplx.Abs(got[i]-want[i]))
		s = math.Max(s, cmplx.Abs(want[i]))
	}
	return d / s
}

// cunitaryErr returns max |Q^H Q - I| for the m×k matrix q.
func cunitaryErr(q []complex128, m, k int) float64 {
	qq := cmatMul(ConjTrans, NoTrans, k, k, m, q, q)
	for i := range k {
		qq[i*k+i]--
	}
	return crelErr(qq, make([]complex128, k*k))
}

// hpd returns a random Hermitian positive-definite n×n matrix, B B^H + n I.
func hpd(rng *rand.Rand, n int) []complex128 {
	b := crandSlice(rng, n*n)
	a := cmatMul(NoTrans, ConjTrans, n, n, n, b, b)
	for i := range n {
		a[i*n+i] += complex(float64(n), 0)
	}
	return a
}

func TestSuiteComplexPotrf(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range suiteSizes {
		a := hpd(rng, n)
		l := slices.Clone(a)
		if bad := Potrf(l, a, n); bad != 0 {
			t.Fatalf("n=%d: Hermitian positive-definite matrix failed at order %d", n, bad)
		}
		for i := range n {
			if imag(l[i*n+i]) != 0 || real(l[i*n+i]) <= 0 {
				t.Fatalf("n=%d: L[%d,%d] = %v, want real and positive", n, i, i, l[i*n+i])
			}
		}
		if e := crelErr(cmatMul(NoTrans, ConjTrans, n, n, n, l, l), a); e > suiteTol {
			t.Errorf("n=%d: |L L^H - A| = %g", n, e)
		}
		if n > 1 {
			bad := slices.Clone(a)
			bad[(n-1)*n+n-1] = -1
			if got := Potrf(slices.Clone(bad), bad, n); got != n {
				t.Errorf("n=%d: indefinite matrix: failing order %d, want %d", n, got, n)
			}
		}
	}
}

func TestSuiteComplexGetrfGetrs(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range suiteSizes {
		for _, tr := range []TransKind{NoTrans, Trans, ConjTrans} {
			a := crandSlice(rng, n*n)
			for i := range n {
				a[i*n+i] += complex(float64(n), 0)
			}
			lu, piv := slices.Clone(a), make([]int, n)
			if z := Getrf(lu, n, n, piv); z >= 0 {
				t.Fatalf("n=%d: zero pivot at %d", n, z)
			}
			const nrhs = 3
			b := crandSlice(rng, n*nrhs)
			x := slices.Clone(b)
			Getrs(lu, n, piv, x, nrhs, tr)
			if e := crelErr(cmatMul(tr, NoTrans, n, nrhs, n, a, x), b); e > suiteTol {
				t.Errorf("n=%d tr=%d: |op(A) X - B| = %g", n, tr, e)
			}
		}
	}
}

func TestSuiteComplexTrsm(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, n := range suiteSizes {
		for _, upper := range []bool{false, true} {
			for _, tr := range []TransKind{NoTrans, Trans, ConjTrans} {
				for _, unit := range []bool{false, true} {
					name := fmt.Sprintf("n=%d upper=%v tr=%d unit=%v", n, upper, tr, unit)
					a := crandSlice(rng, n*n)
					tri := make([]complex128, n*n)
					for i := range n {
						for j := range n {
							switch {
							case i == j && unit:
								tri[i*n+j] = 1
							case i == j: // |T_ii| >= 2: well-conditioned
								a[i*n+j] = complex(2+cmplx.Abs(a[i*n+j]), imag(a[i*n+j]))
								tri[i*n+j] = a[i*n+j]
							case (j > i) == upper:
								a[i*n+j] /= complex(float64(n), 0)
								tri[i*n+j] = a[i*n+j]
							}
						}
					}
					const nrhs = 3
					b := crandSlice(rng, n*nrhs)
					x := slices.Clone(b)
					Trsm(a, n, x, nrhs, upper, tr, unit)
					if e := crelErr(cmatMul(tr, NoTrans, n, nrhs, n, tri, x), b); e > suiteTol {
						t.Errorf("%s: |op(T) X - B| = %g", name, e)
					}
				}
			}
		}
	}
}

func TestSuiteComplexQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, sh := range suiteShapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		if k == 0 {
			continue // linalg handles empty matrices before the kernels
		}
		a := crandSlice(rng, m*n)
		q, r := make([]complex128, m*k), make([]complex128, k*n)
		QRComplex(slices.Clone(a), m, n, q, r)
		for i := range k {
			for j := range min(i, n) {
				if r[i*n+j] != 0 {
					t.Fatalf("%dx%d: R[%d,%d] = %v below the diagonal", m, n, i, j, r[i*n+j])
				}
			}
		}
		if e := crelErr(cmatMul(NoTrans, NoTrans, m, n, k, q, r), a); e > suiteTol {
			t.Errorf("%dx%d: |Q R - A| = %g", m, n, e)
		}
		if e := cunitaryErr(q, m, k); e > suiteTol {
			t.Errorf("%dx%d: |Q^H Q - I| = %g", m, n, e)
		}
	}
}

func TestSuiteComplexHermEig(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, n := range suiteSizes {
		b := crandSlice(rng, n*n)
		a := make([]complex128, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = b[i*n+j] + cmplx.Conj(b[j*n+i])
			}
		}
		v, w := slices.Clone(a), make([]float64, n)
		if !HermEig(v, w, n) {
			t.Fatalf("n=%d: no convergence", n)
		}
		if !slices.IsSorted(w) {
			t.Errorf("n=%d: eigenvalues not ascending", n)
		}
		vw := slices.Clone(v)
		for i := range n {
			for j := range n {
				vw[i*n+j] *= complex(w[j], 0)
			}
		}
		tol := suiteTol * float64(max(n, 1))
		if e := crelErr(cmatMul(NoTrans, NoTrans, n, n, n, a, v), vw); e > tol {
			t.Errorf("n=%d: |A V - V diag(w)| = %g", n, e)
		}
		if e := cunitaryErr(v, n, n); e > tol {
			t.Errorf("n=%d: |V^H V - I| = %g", n, e)
		}
	}
}

func TestSuiteComplexSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, sh := range suiteShapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		if k == 0 {
			continue // linalg handles empty matrices before the kernels
		}
		a := crandSlice(rng, m*n)
		s, u, vh := make([]float64, k), make([]complex128, m*k), make([]complex128, k*n)
		if !CSVD(a, m, n, s, u, vh) {
			t.Fatalf("%dx%d: no convergence", m, n)
		}
		for i := range k {
			if s[i] < 0 || i > 0 && s[i] > s[i-1] {
				t.Fatalf("%dx%d: singular values not descending and nonnegative: %v", m, n, s)
			}
		}
		us := slices.Clone(u)
		for i := range m {
			for j := range k {
				us[i*k+j] *= complex(s[j], 0)
			}
		}
		tol := suiteTol * float64(max(m, n))
		if e := crelErr(cmatMul(NoTrans, NoTrans, m, n, k, us, vh), a); e > tol {
			t.Errorf("%dx%d: |U diag(s) Vh - A| = %g", m, n, e)
		}
		if e := cunitaryErr(u, m, k); e > tol {
			t.Errorf("%dx%d: |U^H U - I| = %g", m, n, e)
		}
		if e := cunitaryErr(cmatMul(ConjTrans, NoTrans, n, k, k, vh, identity(k)), n, k); e > tol {
			t.Errorf("%dx%d: |Vh Vh^H - I| = %g", m, n, e)
		}
	}
}

// identity returns the n×n identity matrix.
func identity(n int) []complex128 {
	id := make([]complex128, n*n)
	for i := range n {
		id[i*n+i] = 1
	}
	return id
}

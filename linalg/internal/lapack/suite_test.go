package lapack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// The shared test suite of the float64 kernels, in the manner of gonum's
// lapack/testlapack: each check is a function taking an implementation (the
// interfaces below) and verifying the defining identities of the routine on
// matrices of sizes around the block splits and the switch-over sizes (eigSmall,
// svdSmall), never a stored result. TestSuite runs every check against three
// implementations: the package's own kernels, the same entry points with
// SetLAPACK64(true) (gonum's lapack64 and blas64 behind them), and gonum's
// lapack/gonum called directly through the adapter gonumKernels. All matrices are
// row-major with leading dimension equal to the number of columns.

// Potrfer factors a symmetric positive-definite n×n matrix (lower triangle read)
// in place as L L^T, L in the lower triangle; ok is false when a is not positive
// definite.
type Potrfer interface {
	Potrf(a []float64, n int) (ok bool)
}

// Getrfer factors an m×n matrix in place as P L U with partial pivoting
// (zero-based piv as LAPACK's ipiv minus one); ok is false when U is singular.
type Getrfer interface {
	Getrf(a []float64, m, n int, piv []int) (ok bool)
}

// Getrser solves op(A) X = B in place in the n×nrhs b from the factors of Getrf.
type Getrser interface {
	Getrfer
	Getrs(lu []float64, n int, piv []int, b []float64, nrhs int, trans bool)
}

// Trsmer solves op(T) X = B in place in the n×nrhs b, T the upper or lower
// triangle of the n×n a (unit diagonal if unit), op(T) = T^T when trans.
type Trsmer interface {
	Trsm(a []float64, n int, b []float64, nrhs int, upper, trans, unit bool)
}

// Syever computes the eigenvalues (ascending) of the symmetric n×n a (lower
// triangle read) into w and, with vectors, the orthonormal eigenvectors into the
// columns of a.
type Syever interface {
	Syev(a, w []float64, n int, vectors bool) (ok bool)
}

// Gesvder computes the thin SVD of the m×n a (clobbered): s descending, and with
// vectors U (m×k) and V^T (k×n), k = min(m, n).
type Gesvder interface {
	Gesvd(a []float64, m, n int, s, u, vt []float64, vectors bool) (ok bool)
}

// Geqrfer computes the reduced QR decomposition of the m×n a (clobbered): Q
// (m×k) and R (k×n), k = min(m, n).
type Geqrfer interface {
	Geqrf(a []float64, m, n int, q, r []float64)
}

// Implementation is every routine of the suite.
type Implementation interface {
	Potrfer
	Getrser
	Trsmer
	Syever
	Gesvder
	Geqrfer
}

// ownKernels calls the package's entry points with the switch SetLAPACK64 as it
// finds it.
type ownKernels struct{}

func (ownKernels) Potrf(a []float64, n int) bool {
	return Potrf(a, slices.Clone(a), n) == 0
}

func (ownKernels) Getrf(a []float64, m, n int, piv []int) bool {
	return Getrf(a, m, n, piv) < 0
}

func (ownKernels) Getrs(lu []float64, n int, piv []int, b []float64, nrhs int, trans bool) {
	tr := NoTrans
	if trans {
		tr = Trans
	}
	Getrs(lu, n, piv, b, nrhs, tr)
}

func (ownKernels) Trsm(a []float64, n int, b []float64, nrhs int, upper, trans, unit bool) {
	tr := NoTrans
	if trans {
		tr = Trans
	}
	Trsm(a, n, b, nrhs, upper, tr, unit)
}

func (ownKernels) Syev(a, w []float64, n int, vectors bool) bool { return SymEig(a, w, n, vectors) }

func (ownKernels) Gesvd(a []float64, m, n int, s, u, vt []float64, vectors bool) bool {
	return SVD(a, m, n, s, u, vt, vectors)
}

func (ownKernels) Geqrf(a []float64, m, n int, q, r []float64) { QR(a, m, n, q, r) }

// lapack64Kernels is ownKernels with SetLAPACK64(true) around each call.
type lapack64Kernels struct{ ownKernels }

func with64[R any](f func() R) R {
	SetLAPACK64(true)
	defer SetLAPACK64(false)
	return f()
}

func (k lapack64Kernels) Potrf(a []float64, n int) bool {
	return with64(func() bool { return k.ownKernels.Potrf(a, n) })
}

func (k lapack64Kernels) Getrf(a []float64, m, n int, piv []int) bool {
	return with64(func() bool { return k.ownKernels.Getrf(a, m, n, piv) })
}

func (k lapack64Kernels) Getrs(lu []float64, n int, piv []int, b []float64, nrhs int, trans bool) {
	with64(func() bool { k.ownKernels.Getrs(lu, n, piv, b, nrhs, trans); return true })
}

func (k lapack64Kernels) Trsm(a []float64, n int, b []float64, nrhs int, upper, trans, unit bool) {
	with64(func() bool { k.ownKernels.Trsm(a, n, b, nrhs, upper, trans, unit); return true })
}

func (k lapack64Kernels) Syev(a, w []float64, n int, vectors bool) bool {
	return with64(func() bool { return k.ownKernels.Syev(a, w, n, vectors) })
}

func (k lapack64Kernels) Gesvd(a []float64, m, n int, s, u, vt []float64, vectors bool) bool {
	return with64(func() bool { return k.ownKernels.Gesvd(a, m, n, s, u, vt, vectors) })
}

func (k lapack64Kernels) Geqrf(a []float64, m, n int, q, r []float64) {
	with64(func() bool { k.ownKernels.Geqrf(a, m, n, q, r); return true })
}

// gonumKernels adapts gonum's lapack/gonum (and blas/gonum for Dtrsm) to the
// suite's interfaces.
type gonumKernels struct {
	impl gonum.Implementation
	blas gonumblas.Implementation
}

func (g gonumKernels) Potrf(a []float64, n int) bool {
	if !g.impl.Dpotrf(blas.Lower, n, a, max(n, 1)) {
		return false
	}
	for i := range n {
		clear(a[i*n+i+1 : i*n+n])
	}
	return true
}

func (g gonumKernels) Getrf(a []float64, m, n int, piv []int) bool {
	if m == 0 || n == 0 {
		return true
	}
	return g.impl.Dgetrf(m, n, a, n, piv)
}

func (g gonumKernels) Getrs(lu []float64, n int, piv []int, b []float64, nrhs int, trans bool) {
	if n == 0 || nrhs == 0 {
		return
	}
	tr := blas.NoTrans
	if trans {
		tr = blas.Trans
	}
	g.impl.Dgetrs(tr, n, nrhs, lu, n, piv, b, nrhs)
}

func (g gonumKernels) Trsm(a []float64, n int, b []float64, nrhs int, upper, trans, unit bool) {
	if n == 0 || nrhs == 0 {
		return
	}
	ul, tr, diag := blas.Lower, blas.NoTrans, blas.NonUnit
	if upper {
		ul = blas.Upper
	}
	if trans {
		tr = blas.Trans
	}
	if unit {
		diag = blas.Unit
	}
	g.blas.Dtrsm(blas.Left, ul, tr, diag, n, nrhs, 1, a, n, b, nrhs)
}

func (g gonumKernels) Syev(a, w []float64, n int, vectors bool) bool {
	if n == 0 {
		return true
	}
	job := lapack.EVNone
	if vectors {
		job = lapack.EVCompute
	}
	work := []float64{0}
	g.impl.Dsyev(job, blas.Lower, n, a, n, w, work, -1)
	work = make([]float64, int(work[0]))
	return g.impl.Dsyev(job, blas.Lower, n, a, n, w, work, len(work))
}

func (g gonumKernels) Gesvd(a []float64, m, n int, s, u, vt []float64, vectors bool) bool {
	k := min(m, n)
	job, ldu, ldvt := lapack.SVDStore, max(k, 1), max(n, 1)
	if !vectors {
		job, ldu, ldvt = lapack.SVDNone, 1, 1
	}
	work := []float64{0}
	g.impl.Dgesvd(job, job, m, n, a, max(n, 1), s, u, ldu, vt, ldvt, work, -1)
	work = make([]float64, int(work[0]))
	return g.impl.Dgesvd(job, job, m, n, a, max(n, 1), s, u, ldu, vt, ldvt, work, len(work))
}

func (g gonumKernels) Geqrf(a []float64, m, n int, q, r []float64) {
	k := min(m, n)
	if k == 0 {
		return
	}
	tau := make([]float64, k)
	work := make([]float64, max(m, n)*64)
	g.impl.Dgeqrf(m, n, a, n, tau, work, len(work))
	for i := range k {
		copy(r[i*n+i:i*n+n], a[i*n+i:i*n+n])
		copy(q[i*k:i*k+k], a[i*n:i*n+k])
	}
	for i := k; i < m; i++ {
		copy(q[i*k:i*k+k], a[i*n:i*n+k])
	}
	g.impl.Dorgqr(m, k, k, q, k, tau, work, len(work))
}

// TestSuite runs every check of the suite against each implementation.
func TestSuite(t *testing.T) {
	impls := []struct {
		name string
		impl Implementation
	}{
		{"own", ownKernels{}},
		{"own+lapack64", lapack64Kernels{}},
		{"gonum", gonumKernels{}},
	}
	checks := []struct {
		name  string
		check func(*testing.T, Implementation)
	}{
		{"Potrf", func(t *testing.T, i Implementation) { testPotrf(t, i) }},
		{"Getrf", func(t *testing.T, i Implementation) { testGetrf(t, i) }},
		{"Getrs", func(t *testing.T, i Implementation) { testGetrs(t, i) }},
		{"Trsm", func(t *testing.T, i Implementation) { testTrsm(t, i) }},
		{"Syev", func(t *testing.T, i Implementation) { testSyev(t, i) }},
		{"Gesvd", func(t *testing.T, i Implementation) { testGesvd(t, i) }},
		{"Geqrf", func(t *testing.T, i Implementation) { testGeqrf(t, i) }},
	}
	for _, im := range impls {
		for _, c := range checks {
			t.Run(im.name+"/"+c.name, func(t *testing.T) { c.check(t, im.impl) })
		}
	}
}

// suiteSizes are the square sizes of the suite: around the unblocked base cases
// (8, 16, 32) and the switch-over of the eigensolver and SVD (48).
var suiteSizes = []int{0, 1, 2, 7, 16, 17, 33, 49, 70}

// suiteShapes are the rectangular shapes (m, n) of the suite.
var suiteShapes = [][2]int{{0, 3}, {3, 0}, {1, 5}, {5, 1}, {9, 4}, {4, 9}, {60, 50}, {50, 60}, {70, 70}}

const suiteTol = 1e-11

// matMul returns the m×n product op(A) op(B) of row-major a and b, op(X) = X^T
// when the flag is set, with inner dimension k.
func matMul(ta, tb bool, m, n, k int, a, b []float64) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for l := range k {
				ai, bj := a[i*k+l], b[l*n+j]
				if ta {
					ai = a[l*m+i]
				}
				if tb {
					bj = b[j*k+l]
				}
				s += ai * bj
			}
			c[i*n+j] = s
		}
	}
	return c
}

// relErr returns max |got - want| / max(max |want|, 1).
func relErr(got, want []float64) float64 {
	d, s := 0.0, 1.0
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		s = math.Max(s, math.Abs(want[i]))
	}
	return d / s
}

// orthoErr returns max |Q^T Q - I| for the m×k matrix q (orthonormal columns).
func orthoErr(q []float64, m, k int) float64 {
	qq := matMul(true, false, k, k, m, q, q)
	for i := range k {
		qq[i*k+i]--
	}
	return relErr(qq, make([]float64, k*k))
}

// spd returns a random symmetric positive-definite n×n matrix, B B^T + n I.
func spd(rng *rand.Rand, n int) []float64 {
	b := randSlice(rng, n*n)
	a := matMul(false, true, n, n, n, b, b)
	for i := range n {
		a[i*n+i] += float64(n)
	}
	return a
}

func testPotrf(t *testing.T, impl Potrfer) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range suiteSizes {
		a := spd(rng, n)
		l := slices.Clone(a)
		if !impl.Potrf(l, n) {
			t.Fatalf("n=%d: positive-definite matrix reported as not", n)
		}
		for i := range n {
			for j := i + 1; j < n; j++ {
				if l[i*n+j] != 0 {
					t.Fatalf("n=%d: L[%d,%d] = %g above the diagonal", n, i, j, l[i*n+j])
				}
			}
		}
		if e := relErr(matMul(false, true, n, n, n, l, l), a); e > suiteTol {
			t.Errorf("n=%d: |L L^T - A| = %g", n, e)
		}
		if n > 1 {
			bad := slices.Clone(a)
			bad[(n-1)*n+n-1] = -1 // the last leading minor is no longer positive
			if impl.Potrf(bad, n) {
				t.Errorf("n=%d: indefinite matrix factored", n)
			}
		}
	}
}

// applyPiv returns P^T A for the row interchanges piv (A = P L U).
func applyPiv(a []float64, m, n int, piv []int) []float64 {
	pa := slices.Clone(a)
	for k, p := range piv {
		if p != k {
			for j := range n {
				pa[k*n+j], pa[p*n+j] = pa[p*n+j], pa[k*n+j]
			}
		}
	}
	return pa
}

func testGetrf(t *testing.T, impl Getrfer) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range suiteShapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		a := randSlice(rng, m*n)
		lu := slices.Clone(a)
		piv := make([]int, k)
		if !impl.Getrf(lu, m, n, piv) {
			t.Fatalf("%dx%d: random matrix reported singular", m, n)
		}
		l, u := make([]float64, m*k), make([]float64, k*n)
		for i := range m {
			for j := range n {
				switch {
				case i > j && j < k:
					l[i*k+j] = lu[i*n+j]
				case i <= j && i < k:
					u[i*n+j] = lu[i*n+j]
				}
			}
			if i < k {
				l[i*k+i] = 1
			}
		}
		for j, p := range piv {
			if p < j || p >= m {
				t.Fatalf("%dx%d: piv[%d] = %d", m, n, j, p)
			}
			// Partial pivoting: |L| <= 1 below the diagonal.
			for i := j + 1; i < m; i++ {
				if math.Abs(l[i*k+j]) > 1+1e-15 {
					t.Fatalf("%dx%d: |L[%d,%d]| = %g > 1", m, n, i, j, l[i*k+j])
				}
			}
		}
		if e := relErr(matMul(false, false, m, n, k, l, u), applyPiv(a, m, n, piv)); e > suiteTol {
			t.Errorf("%dx%d: |L U - P^T A| = %g", m, n, e)
		}
		if k > 1 {
			sing := slices.Clone(a)
			for i := range m {
				sing[i*n+1] = 0 // a zero column: U[1,1] is exactly zero
			}
			if impl.Getrf(sing, m, n, make([]int, k)) {
				t.Errorf("%dx%d: singular matrix not reported", m, n)
			}
		}
	}
}

func testGetrs(t *testing.T, impl Getrser) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range suiteSizes {
		for _, nrhs := range []int{1, 5} {
			for _, trans := range []bool{false, true} {
				a := randSlice(rng, n*n)
				for i := range n {
					a[i*n+i] += float64(n)
				}
				lu, piv := slices.Clone(a), make([]int, n)
				if !impl.Getrf(lu, n, n, piv) {
					t.Fatalf("n=%d: singular", n)
				}
				b := randSlice(rng, n*nrhs)
				x := slices.Clone(b)
				impl.Getrs(lu, n, piv, x, nrhs, trans)
				if e := relErr(matMul(trans, false, n, nrhs, n, a, x), b); e > suiteTol {
					t.Errorf("n=%d nrhs=%d trans=%v: |op(A) X - B| = %g", n, nrhs, trans, e)
				}
			}
		}
	}
}

func testTrsm(t *testing.T, impl Trsmer) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range suiteSizes {
		for _, upper := range []bool{false, true} {
			for _, trans := range []bool{false, true} {
				for _, unit := range []bool{false, true} {
					name := fmt.Sprintf("n=%d upper=%v trans=%v unit=%v", n, upper, trans, unit)
					a := randSlice(rng, n*n)
					tri := make([]float64, n*n) // the triangle the routine may read
					for i := range n {
						a[i*n+i] = 2 + math.Abs(a[i*n+i]) // well-conditioned
						for j := range n {
							if (j > i) == upper && j != i || j == i && !unit {
								tri[i*n+j] = a[i*n+j]
							}
						}
						if unit {
							tri[i*n+i] = 1
						}
					}
					// Scale the off-diagonal so that the triangle stays well-conditioned.
					for i := range n {
						for j := range n {
							if i != j {
								a[i*n+j] /= float64(n)
								tri[i*n+j] /= float64(n)
							}
						}
					}
					const nrhs = 3
					b := randSlice(rng, n*nrhs)
					x := slices.Clone(b)
					impl.Trsm(a, n, x, nrhs, upper, trans, unit)
					if e := relErr(matMul(trans, false, n, nrhs, n, tri, x), b); e > suiteTol {
						t.Errorf("%s: |op(T) X - B| = %g", name, e)
					}
				}
			}
		}
	}
}

func testSyev(t *testing.T, impl Syever) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range suiteSizes {
		b := randSlice(rng, n*n)
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = b[i*n+j] + b[j*n+i]
			}
		}
		// Only the lower triangle may be read: garbage above it.
		lower := slices.Clone(a)
		for i := range n {
			for j := i + 1; j < n; j++ {
				lower[i*n+j] = math.NaN()
			}
		}
		v, w := slices.Clone(lower), make([]float64, n)
		if !impl.Syev(v, w, n, true) {
			t.Fatalf("n=%d: no convergence", n)
		}
		if !slices.IsSorted(w) {
			t.Errorf("n=%d: eigenvalues not ascending", n)
		}
		vw := slices.Clone(v)
		for i := range n {
			for j := range n {
				vw[i*n+j] *= w[j]
			}
		}
		if e := relErr(matMul(false, false, n, n, n, a, v), vw); e > suiteTol*float64(max(n, 1)) {
			t.Errorf("n=%d: |A V - V diag(w)| = %g", n, e)
		}
		if e := orthoErr(v, n, n); e > suiteTol*float64(max(n, 1)) {
			t.Errorf("n=%d: |V^T V - I| = %g", n, e)
		}
		w2 := make([]float64, n)
		if !impl.Syev(slices.Clone(lower), w2, n, false) {
			t.Fatalf("n=%d: no convergence (values only)", n)
		}
		if e := relErr(w2, w); e > suiteTol*float64(max(n, 1)) {
			t.Errorf("n=%d: eigenvalues without vectors differ by %g", n, e)
		}
	}
}

func testGesvd(t *testing.T, impl Gesvder) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range suiteShapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		a := randSlice(rng, m*n)
		if k == 0 {
			continue // linalg handles empty matrices before the kernels
		}
		s, u, vt := make([]float64, k), make([]float64, m*k), make([]float64, k*n)
		if !impl.Gesvd(slices.Clone(a), m, n, s, u, vt, true) {
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
				us[i*k+j] *= s[j]
			}
		}
		tol := suiteTol * float64(max(m, n, 1))
		if e := relErr(matMul(false, false, m, n, k, us, vt), a); e > tol {
			t.Errorf("%dx%d: |U diag(s) V^T - A| = %g", m, n, e)
		}
		if e := orthoErr(u, m, k); e > tol {
			t.Errorf("%dx%d: |U^T U - I| = %g", m, n, e)
		}
		if e := orthoErr(transposed(vt, k, n), n, k); e > tol {
			t.Errorf("%dx%d: |V^T V - I| = %g", m, n, e)
		}
		s2 := make([]float64, k)
		if !impl.Gesvd(slices.Clone(a), m, n, s2, make([]float64, m*k), make([]float64, k*n), false) {
			t.Fatalf("%dx%d: no convergence (values only)", m, n)
		}
		if e := relErr(s2, s); e > tol {
			t.Errorf("%dx%d: singular values without vectors differ by %g", m, n, e)
		}
	}
}

func testGeqrf(t *testing.T, impl Geqrfer) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sh := range suiteShapes {
		m, n := sh[0], sh[1]
		k := min(m, n)
		a := randSlice(rng, m*n)
		if k == 0 {
			continue // linalg handles empty matrices before the kernels
		}
		q, r := make([]float64, m*k), make([]float64, k*n)
		impl.Geqrf(slices.Clone(a), m, n, q, r)
		for i := range k {
			for j := range min(i, n) {
				if r[i*n+j] != 0 {
					t.Fatalf("%dx%d: R[%d,%d] = %g below the diagonal", m, n, i, j, r[i*n+j])
				}
			}
		}
		if e := relErr(matMul(false, false, m, n, k, q, r), a); e > suiteTol {
			t.Errorf("%dx%d: |Q R - A| = %g", m, n, e)
		}
		if e := orthoErr(q, m, k); e > suiteTol {
			t.Errorf("%dx%d: |Q^T Q - I| = %g", m, n, e)
		}
	}
}

// transposed returns the n×m transpose of the m×n matrix a.
func transposed(a []float64, m, n int) []float64 {
	at := make([]float64, m*n)
	Transpose(at, a, m, n)
	return at
}

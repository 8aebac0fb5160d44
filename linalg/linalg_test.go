package linalg_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

func randn(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	return tensor.RandN(rng, dt, shape...)
}

func ein(t *testing.T, spec string, x ...*tensor.Dense) *tensor.Dense {
	t.Helper()
	y, err := einsum.Eval(spec, x...)
	require.NoError(t, err)
	return y
}

// spdOf returns B B^H + n I for a batch B.
func spdOf(t *testing.T, b *tensor.Dense) *tensor.Dense {
	t.Helper()
	n := b.Shape()[b.Rank()-1]
	s, err := tensor.Add(ein(t, "...ij,...kj->...ik", b, b.Conj()), tensor.Scale(eye(b.DType(), n), float64(n)))
	require.NoError(t, err)
	return s
}

func eye(dt tensor.DType, n int) *tensor.Dense {
	e := tensor.New(dt, n, n)
	for i := range n {
		e.Set(1, i, i)
	}
	return e
}

// batchEye returns count identities [count, n, n].
func batchEye(t *testing.T, dt tensor.DType, count, n int) *tensor.Dense {
	return ein(t, "ij,b->bij", eye(dt, n), tensor.Ones(dt, count))
}

func near(t *testing.T, got, want *tensor.Dense, tol float64, msg string) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape(), msg)
	require.True(t, tensor.EqualApprox(got, want, tol, tol), "%s:\ngot  %v\nwant %v", msg, got, want)
}

// TestSolveInvDet checks solve, inv, det, logdet and slogdet against their
// defining identities, in both dtypes.
func TestSolveInvDet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		a := randn(rng, dt, 2, 4, 4)
		b := randn(rng, dt, 2, 4, 3)
		x, err := linalg.Solve(a, b)
		require.NoError(t, err)
		near(t, ein(t, "...ij,...jk->...ik", a, x), b, 1e-12, "A solve(A, B) = B")

		v := randn(rng, dt, 4)
		xv, err := linalg.Solve(a, v)
		require.NoError(t, err)
		near(t, ein(t, "bij,bj->bi", a, xv), ein(t, "i,b->bi", v, tensor.Ones(dt, 2)), 1e-12, "a vector rhs broadcasts over A's batch")

		inv, err := linalg.Inv(a)
		require.NoError(t, err)
		near(t, ein(t, "...ij,...jk->...ik", a, inv), batchEye(t, dt, 2, 4), 1e-12, "A inv(A) = I")

		// det(A B) = det(A) det(B), from independent factorisations.
		c := randn(rng, dt, 2, 4, 4)
		dab, err := linalg.Det(ein(t, "...ij,...jk->...ik", a, c))
		require.NoError(t, err)
		da, err := linalg.Det(a)
		require.NoError(t, err)
		dc, err := linalg.Det(c)
		require.NoError(t, err)
		prod, err := tensor.Mul(da, dc)
		require.NoError(t, err)
		near(t, dab, prod, 1e-11, "det(A C) = det(A) det(C)")

		ld, err := linalg.Logdet(a)
		require.NoError(t, err)
		for k := range 2 {
			d, l := da.At(k), ld.At(k)
			if dt == tensor.Float64 {
				if real(d) < 0 {
					require.True(t, math.IsNaN(real(l)), "logdet of a negative determinant is NaN")
				} else {
					require.InDelta(t, math.Log(real(d)), real(l), 1e-12)
				}
				continue
			}
			require.InDelta(t, 0, cmplx.Abs(cmplx.Exp(l)-d)/cmplx.Abs(d), 1e-12, "exp(logdet) = det")
		}
	}
	a := randn(rng, tensor.Float64, 3, 3, 3)
	sign, logabs, err := linalg.Slogdet(a)
	require.NoError(t, err)
	d, err := linalg.Det(a)
	require.NoError(t, err)
	for k := range 3 {
		require.InDelta(t, real(d.At(k)), real(sign.At(k))*math.Exp(real(logabs.At(k))), 1e-12)
	}
}

// TestCholeskyAndTriangular checks the Cholesky factors, cholesky_solve and the
// triangular solves (which must not read the other triangle).
func TestCholeskyAndTriangular(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		s := spdOf(t, randn(rng, dt, 5, 5))
		l, err := linalg.Cholesky(s, false)
		require.NoError(t, err)
		near(t, ein(t, "ij,kj->ik", l, l.Conj()), s, 1e-12, "L L^H = A")
		for i := range 5 {
			require.Greater(t, real(l.At(i, i)), 0.0)
			require.Zero(t, imag(l.At(i, i)))
			for j := i + 1; j < 5; j++ {
				require.Zero(t, l.At(i, j), "L is lower triangular")
			}
		}
		u, err := linalg.Cholesky(s, true)
		require.NoError(t, err)
		near(t, ein(t, "ji,jk->ik", u.Conj(), u), s, 1e-12, "U^H U = A")

		b := randn(rng, dt, 2, 5, 3)
		x, err := linalg.CholeskySolve(b, l, false)
		require.NoError(t, err)
		near(t, ein(t, "ij,bjk->bik", s, x), b, 1e-12, "cholesky_solve broadcasts L over B's batch")
		xu, err := linalg.CholeskySolve(b, u, true)
		require.NoError(t, err)
		near(t, xu, x, 1e-12, "the upper factor gives the same solution")

		noisy := l.Clone()
		noisy.Set(99, 0, 4) // in the triangle that is not read
		y, err := linalg.SolveTriangular(noisy, b, false, true, false)
		require.NoError(t, err)
		near(t, ein(t, "ij,bjk->bik", l, y), b, 1e-12, "lower, left")
		br := randn(rng, dt, 3, 5)
		yr, err := linalg.SolveTriangular(noisy, br, false, false, true)
		require.NoError(t, err)
		unit := l.Clone()
		for i := range 5 {
			unit.Set(1, i, i)
		}
		near(t, ein(t, "ij,jk->ik", yr, unit), br, 1e-12, "lower, right, unit diagonal")
		yu, err := linalg.SolveTriangular(u, br, true, false, false)
		require.NoError(t, err)
		near(t, ein(t, "ij,jk->ik", yu, u), br, 1e-12, "upper, right")
	}
}

// TestLU checks lu_factor, lu and lu_solve in every mode.
func TestLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, sh := range [][]int{{4, 4}, {3, 5}, {5, 3}} {
			a := randn(rng, dt, sh...)
			p, l, u, err := linalg.LU(a)
			require.NoError(t, err)
			near(t, ein(t, "ij,jk,kl->il", p, l, u), a, 1e-12, "P L U = A")
			k := min(sh[0], sh[1])
			require.Equal(t, []int{sh[0], k}, l.Shape())
			require.Equal(t, []int{k, sh[1]}, u.Shape())
			for i := range sh[0] {
				for j := range k {
					switch {
					case i == j:
						require.Equal(t, complex128(1), l.At(i, j))
					case j > i:
						require.Zero(t, l.At(i, j))
					default:
						require.LessOrEqual(t, cmplx.Abs(l.At(i, j)), 1+1e-15, "partial pivoting bounds L")
					}
				}
			}
			near(t, ein(t, "ij,kj->ik", p, p), eye(tensor.Float64, sh[0]).AsComplex(), 0, "P is a permutation")
		}
		a := randn(rng, dt, 2, 4, 4)
		lu, piv, err := linalg.LUFactor(a)
		require.NoError(t, err)
		for _, left := range []bool{true, false} {
			for _, adj := range []bool{false, true} {
				b := randn(rng, dt, 2, 4, 4)
				x, err := linalg.LUSolve(lu, piv, b, left, adj)
				require.NoError(t, err)
				op := a
				if adj {
					op = ein(t, "bij->bji", a.Conj())
				}
				got := ein(t, "bij,bjk->bik", op, x)
				if !left {
					got = ein(t, "bij,bjk->bik", x, op)
				}
				near(t, got, b, 1e-12, "lu_solve")
			}
		}
	}
}

// TestSpectral checks eigh, svd, qr, pinv and lstsq.
func TestSpectral(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := randn(rng, tensor.Float64, 2, 5, 5)
	s, err := tensor.Add(a, ein(t, "bij->bji", a))
	require.NoError(t, err)
	w, v, err := linalg.Eigh(s)
	require.NoError(t, err)
	near(t, ein(t, "bij,bj->bij", v, w), ein(t, "bij,bjk->bik", s, v), 1e-12, "A V = V diag(w)")
	near(t, ein(t, "bji,bjk->bik", v, v), batchEye(t, tensor.Float64, 2, 5), 1e-12, "V^T V = I")
	for b := range 2 {
		for i := 1; i < 5; i++ {
			require.LessOrEqual(t, real(w.At(b, i-1)), real(w.At(b, i)), "ascending")
		}
	}
	ev, err := linalg.Eigvalsh(s)
	require.NoError(t, err)
	near(t, ev, w, 0, "eigvalsh")

	for _, sh := range [][]int{{5, 3}, {3, 5}, {2, 4, 4}} {
		m := randn(rng, tensor.Float64, sh...)
		u, sv, vh, err := linalg.SVD(m)
		require.NoError(t, err)
		near(t, ein(t, "...ij,...j,...jk->...ik", u, sv, vh), m, 1e-12, "U S Vh = A")
		k := sv.Shape()[sv.Rank()-1]
		uu := ein(t, "...ji,...jk->...ik", u, u)
		vv := ein(t, "...ij,...kj->...ik", vh, vh)
		e := eye(tensor.Float64, k)
		if len(sh) == 3 {
			e = batchEye(t, tensor.Float64, sh[0], k)
		}
		near(t, uu, e, 1e-12, "U^T U = I")
		near(t, vv, e, 1e-12, "Vh Vh^T = I")
		sd := sv.Float64s()
		for i := 1; i < k; i++ {
			require.GreaterOrEqual(t, sd[i-1], sd[i], "descending")
		}
		q, r, err := linalg.QR(m)
		require.NoError(t, err)
		near(t, ein(t, "...ij,...jk->...ik", q, r), m, 1e-12, "Q R = A")
		near(t, ein(t, "...ji,...jk->...ik", q, q), e, 1e-12, "Q^T Q = I")
		p, err := linalg.Pinv(m, linalg.PinvOptions{})
		require.NoError(t, err)
		near(t, ein(t, "...ij,...jk,...kl->...il", m, p, m), m, 1e-12, "A A+ A = A")
		near(t, ein(t, "...ij,...jk,...kl->...il", p, m, p), p, 1e-12, "A+ A A+ = A+")
	}

	// householder_product of LAPACK's reflectors is the Q of the QR decomposition.
	m := randn(rng, tensor.Float64, 6, 4)
	refl := m.Clone()
	tau := make([]float64, 4)
	work := make([]float64, 64*4)
	lapack64.Geqrf(blas64.General{Rows: 6, Cols: 4, Data: refl.Float64s(), Stride: 4}, tau, work, len(work))
	tt, err := tensor.FromFloat64(tau, 4)
	require.NoError(t, err)
	hq, err := linalg.HouseholderProduct(refl, tt)
	require.NoError(t, err)
	q, _, err := linalg.QR(m)
	require.NoError(t, err)
	near(t, hq, q, 1e-12, "householder_product = Q")

	// lstsq: the normal equations, and the residuals.
	aa := randn(rng, tensor.Float64, 6, 3)
	bb := randn(rng, tensor.Float64, 6, 2)
	x, res, err := linalg.Lstsq(aa, bb)
	require.NoError(t, err)
	near(t, ein(t, "ji,jk,kl->il", aa, aa, x), ein(t, "ji,jk->ik", aa, bb), 1e-12, "A^T A X = A^T B")
	r, err := tensor.Sub(ein(t, "ij,jk->ik", aa, x), bb)
	require.NoError(t, err)
	near(t, res, ein(t, "ij,ij->j", r, r), 1e-12, "residuals")
	_, res2, err := linalg.Lstsq(randn(rng, tensor.Float64, 2, 3), randn(rng, tensor.Float64, 2, 2))
	require.NoError(t, err)
	require.Equal(t, []int{0}, res2.Shape(), "no residuals for m <= n, as PyTorch")
}

// TestMatrixFunctionsAndNorms checks matrix_exp, matrix_power, the norms, cond and
// the vector ops.
func TestMatrixFunctionsAndNorms(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, scale := range []float64{0.1, 3} { // without and with squarings
			a := tensor.Scale(randn(rng, dt, 4, 4), scale)
			e, err := linalg.MatrixExp(a)
			require.NoError(t, err)
			// exp(A) = exp(A/2^8)^(2^8), the small one by its Taylor series.
			small := tensor.Scale(a, 1.0/256)
			term, sum := eye(dt, 4), eye(dt, 4)
			for k := 1; k < 20; k++ {
				term = tensor.Scale(ein(t, "ij,jk->ik", term, small), 1/float64(k))
				sum, err = tensor.Add(sum, term)
				require.NoError(t, err)
			}
			for range 8 {
				sum = ein(t, "ij,jk->ik", sum, sum)
			}
			near(t, e, sum, 1e-10*math.Max(1, maxAbs(sum)), "matrix_exp")
		}
		a := randn(rng, dt, 3, 3)
		a3, err := linalg.MatrixPower(a, 3)
		require.NoError(t, err)
		near(t, a3, ein(t, "ij,jk,kl->il", a, a, a), 1e-12, "A^3")
		am2, err := linalg.MatrixPower(a, -2)
		require.NoError(t, err)
		inv, err := linalg.Inv(a)
		require.NoError(t, err)
		near(t, am2, ein(t, "ij,jk->ik", inv, inv), 1e-10, "A^-2")
		a0, err := linalg.MatrixPower(randn(rng, dt, 2, 3, 3), 0)
		require.NoError(t, err)
		near(t, a0, batchEye(t, dt, 2, 3), 0, "A^0 = I")

		tr, err := linalg.Trace(a)
		require.NoError(t, err)
		require.InDelta(t, 0, cmplx.Abs(tr.At()-(a.At(0, 0)+a.At(1, 1)+a.At(2, 2))), 1e-15)

		x, y := randn(rng, dt, 3), randn(rng, dt, 3)
		c, err := linalg.Cross(x, y, -1)
		require.NoError(t, err)
		x0, x1, x2, y0, y1, y2 := x.At(0), x.At(1), x.At(2), y.At(0), y.At(1), y.At(2)
		want := []complex128{x1*y2 - x2*y1, x2*y0 - x0*y2, x0*y1 - x1*y0}
		for i, wv := range want {
			require.InDelta(t, 0, cmplx.Abs(c.At(i)-wv), 1e-15)
		}
		vd, err := linalg.Vecdot(x, y, 0)
		require.NoError(t, err)
		require.InDelta(t, 0, cmplx.Abs(vd.At()-(cmplx.Conj(x0)*y0+cmplx.Conj(x1)*y1+cmplx.Conj(x2)*y2)), 1e-14, "vecdot conjugates x")
		vm, err := linalg.Vander(x, 4)
		require.NoError(t, err)
		for i := range 3 {
			for j := range 4 {
				require.InDelta(t, 0, cmplx.Abs(vm.At(i, j)-cmplx.Pow(x.At(i), complex(float64(j), 0))), 1e-13)
			}
		}
		// tensorinv and tensorsolve.
		m := randn(rng, dt, 6, 6)
		m4, err := m.Reshape(2, 3, 3, 2)
		require.NoError(t, err)
		ti, err := linalg.Tensorinv(m4, 2)
		require.NoError(t, err)
		require.Equal(t, []int{3, 2, 2, 3}, ti.Shape())
		near(t, ein(t, "abcd,cdef->abef", m4, ti), ein(t, "ac,bd->abcd", eye(dt, 2), eye(dt, 3)), 1e-11, "tensordot(A, tensorinv(A), 2) = I")
		rhs := randn(rng, dt, 2, 3)
		ts, err := linalg.Tensorsolve(m4, rhs, nil)
		require.NoError(t, err)
		near(t, ein(t, "abcd,cd->ab", m4, ts), rhs, 1e-11, "tensorsolve")
	}

	m := randn(rng, tensor.Float64, 3, 4)
	_, sv, _, err := linalg.SVD(m)
	require.NoError(t, err)
	s := sv.Float64s()
	md := m.Float64s()
	colMax, rowMax, colMin, rowMin, fro := 0.0, 0.0, math.Inf(1), math.Inf(1), 0.0
	for j := range 4 {
		c := 0.0
		for i := range 3 {
			c += math.Abs(md[i*4+j])
		}
		colMax, colMin = math.Max(colMax, c), math.Min(colMin, c)
	}
	for i := range 3 {
		r := 0.0
		for j := range 4 {
			r += math.Abs(md[i*4+j])
			fro += md[i*4+j] * md[i*4+j]
		}
		rowMax, rowMin = math.Max(rowMax, r), math.Min(rowMin, r)
	}
	for _, c := range []struct {
		ord  linalg.MatrixOrd
		want float64
	}{
		{linalg.OrdFro, math.Sqrt(fro)}, {linalg.OrdNuc, s[0] + s[1] + s[2]}, {linalg.Ord2, s[0]}, {linalg.OrdNeg2, s[2]},
		{linalg.Ord1, colMax}, {linalg.OrdNeg1, colMin}, {linalg.OrdInf, rowMax}, {linalg.OrdNegInf, rowMin},
	} {
		got, err := linalg.MatrixNorm(m, c.ord, -2, -1, false)
		require.NoError(t, err)
		require.InDelta(t, c.want, real(got.At()), 1e-12, string(c.ord))
	}
	cond, err := linalg.Cond(m, linalg.Ord2)
	require.NoError(t, err)
	require.InDelta(t, s[0]/s[2], real(cond.At()), 1e-12)

	x := []float64{3, -4, 0, 1}
	xt, err := tensor.FromFloat64(x, 4)
	require.NoError(t, err)
	for _, c := range []struct{ ord, want float64 }{
		{2, math.Sqrt(26)}, {1, 8}, {0, 3}, {math.Inf(1), 4}, {math.Inf(-1), 0}, {3, math.Cbrt(27 + 64 + 1)},
	} {
		got, err := linalg.VectorNorm(xt, c.ord, nil, false)
		require.NoError(t, err)
		require.InDelta(t, c.want, real(got.At()), 1e-12, "ord %v", c.ord)
	}
}

func maxAbs(x *tensor.Dense) float64 {
	m := 0.0
	for _, v := range x.AsComplex().Complex128s() {
		m = math.Max(m, cmplx.Abs(v))
	}
	return m
}

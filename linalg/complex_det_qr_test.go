package linalg_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestSingularComplexDet: the gradient of det at a singular complex matrix is
// PyTorch's adjugate formula ybar adj(A)^H (here of the loss Re det A, ybar = 1),
// finite, and its HVP the derivative of that polynomial.
func TestSingularComplexDet(t *testing.T) {
	detF := func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
		return t.Apply(elementwise.RealOp, t.Apply(linalg.DetOp(), x[0]))
	}
	// [[1, 2], [2, 4]] as complex128: adj = [[4, -2], [-2, 1]].
	a, err := tensor.FromComplex128([]complex128{1, 2, 2, 4}, 2, 2)
	require.NoError(t, err)
	d, g, err := hvp.Grad(detF, []*tensor.Dense{a})
	require.NoError(t, err)
	require.Zero(t, d.At())
	want, err := tensor.FromComplex128([]complex128{4, -2, -2, 1}, 2, 2)
	require.NoError(t, err)
	near(t, g[0], want, 1e-12, "d det / dA = adj(A)^H at a singular complex A")

	// A rank-1 complex matrix u v^T, u = [1, i], v = [2, 1-i] (det exactly 0):
	// adj = [[1+i, -(1-i)], [-2i, 2]], so the gradient is adj^H.
	b, err := tensor.FromComplex128([]complex128{2, 1 - 1i, 2i, 1 + 1i}, 2, 2)
	require.NoError(t, err)
	_, g, err = hvp.Grad(detF, []*tensor.Dense{b})
	require.NoError(t, err)
	want, err = tensor.FromComplex128([]complex128{1 - 1i, 2i, -1 - 1i, 2}, 2, 2)
	require.NoError(t, err)
	near(t, g[0], want, 1e-12, "d det / dA = adj(A)^H at a rank-1 complex A")

	// A batch of 3×3 rank-2 matrices: the gradient of Re det is conj(adj(A))^T, and
	// the HVP the central difference of it along v.
	s, err := tensor.FromComplex128([]complex128{1, 2i, 3, 2, 4i, 6, 1 + 1i, 0, 1}, 3, 3)
	require.NoError(t, err)
	adjAt := func(x *tensor.Dense) *tensor.Dense {
		_, g, err := hvp.Grad(detF, []*tensor.Dense{x})
		require.NoError(t, err)
		return g[0]
	}
	rng := rand.New(rand.NewPCG(41, 42))
	v := randn(rng, tensor.Complex128, 3, 3)
	gs := adjAt(s)
	require.True(t, finite(gs))
	_, hv, err := hvp.HVP(detF, []*tensor.Dense{s}, []*tensor.Dense{v})
	require.NoError(t, err)
	const h = 1e-4
	plus, err := tensor.AddScaled(s, h, v)
	require.NoError(t, err)
	minus, err := tensor.AddScaled(s, -h, v)
	require.NoError(t, err)
	fd, err := tensor.Sub(adjAt(plus), adjAt(minus))
	require.NoError(t, err)
	near(t, hv[0], tensor.Scale(fd, 1/(2*h)), 1e-7, "HVP of det at a singular complex matrix")
	// Away from the singular matrix the gradient is the ordinary conj(det) A^-H,
	// which the adjugate formula must continue.
	near(t, gs, adjAt(plus), 1e-3, "the gradient is continuous at the singular matrix")
}

// TestComplexQRPrimal: A = Q R with Q^H Q = I, R upper triangular with a real
// diagonal of LAPACK's signs (R_ii = -sign(Re alpha_i) ||a_i||: for the first
// column, -sign(Re A_00) times its norm), for tall, square and wide batches.
func TestComplexQRPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, sh := range [][]int{{5, 3}, {4, 4}, {2, 3, 5}} {
		a := randn(rng, tensor.Complex128, sh...)
		q, r, err := linalg.QR(a)
		require.NoError(t, err)
		m, n := sh[len(sh)-2], sh[len(sh)-1]
		k := min(m, n)
		near(t, ein(t, "...ij,...jk->...ik", q, r), a, 1e-12, "A = Q R")
		count := a.Size() / (m * n)
		qd, rd, ad := q.Complex128s(), r.Complex128s(), a.Complex128s()
		for b := range count {
			for i := range k {
				for j := range k {
					var dot complex128
					for l := range m {
						dot += cmplx.Conj(qd[b*m*k+l*k+i]) * qd[b*m*k+l*k+j]
					}
					want := complex(0, 0)
					if i == j {
						want = 1
					}
					require.InDelta(t, 0, cmplx.Abs(dot-want), 1e-12, "Q^H Q = I")
				}
				require.Zero(t, imag(rd[b*k*n+i*n+i]), "R's diagonal is real")
				for j := range i {
					require.Zero(t, rd[b*k*n+i*n+j], "R is upper triangular")
				}
			}
			var norm float64
			for l := range m {
				norm = math.Hypot(norm, cmplx.Abs(ad[b*m*n+l*n]))
			}
			require.InDelta(t, -math.Copysign(norm, real(ad[b*m*n])), real(rd[b*k*n]), 1e-12, "LAPACK's sign of R_00")
		}
	}
}

// TestComplexSlogdetPrimal: sign exp(logabsdet) = det, |sign| = 1, and a singular
// matrix gives (0, -Inf).
func TestComplexSlogdetPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	a := randn(rng, tensor.Complex128, 3, 4, 4)
	sign, logabs, err := linalg.Slogdet(a)
	require.NoError(t, err)
	require.Equal(t, tensor.Complex128, sign.DType())
	require.Equal(t, tensor.Float64, logabs.DType())
	det, err := linalg.Det(a)
	require.NoError(t, err)
	for b := range 3 {
		s, l, d := sign.Complex128s()[b], logabs.Float64s()[b], det.Complex128s()[b]
		require.InDelta(t, 1, cmplx.Abs(s), 1e-14)
		require.InDelta(t, 0, cmplx.Abs(s*complex(math.Exp(l), 0)-d), 1e-12*cmplx.Abs(d))
	}
	s, err := tensor.FromComplex128([]complex128{1, 2i, 2, 4i}, 2, 2)
	require.NoError(t, err)
	sign, logabs, err = linalg.Slogdet(s)
	require.NoError(t, err)
	require.Zero(t, sign.Complex128s()[0])
	require.True(t, math.IsInf(logabs.Float64s()[0], -1))
}

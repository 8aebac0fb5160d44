package linalg_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestSingularComplexDet: the gradient of det at a singular complex matrix is
// PyTorch's adjugate formula ybar adj(A)^H (here of the loss Re det A, ybar = 1),
// finite, and its HVP the derivative of that polynomial.
func TestSingularComplexDet(t *testing.T) {
	detF := func(t *linalg.Tape, x []cr.NodeID) cr.NodeID {
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
	near(t, hv[0], tensor.Scale(fd, complex(1/(2*h), 0)), 1e-7, "HVP of det at a singular complex matrix")
	// Away from the singular matrix the gradient is the ordinary conj(det) A^-H,
	// which the adjugate formula must continue.
	near(t, gs, adjAt(plus), 1e-3, "the gradient is continuous at the singular matrix")
}

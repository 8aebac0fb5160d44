package linalg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestEigPrimal: A V = V diag(L) with unit eigenvectors, a conjugate pair of a
// rotation, and eigvals equal to eig's values.
func TestEigPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	a := randn(rng, tensor.Float64, 2, 5, 5)
	l, v, err := linalg.Eig(a)
	require.NoError(t, err)
	require.Equal(t, []int{2, 5}, l.Shape())
	require.Equal(t, []int{2, 5, 5}, v.Shape())
	near(t, ein(t, "bij,bjk->bik", a.AsComplex(), v), ein(t, "bij,bj->bij", v, l), 1e-12, "A V = V diag(L)")
	norms := ein(t, "bij,bij->bj", v.Conj(), v)
	near(t, norms, tensor.Ones(tensor.Complex128, 2, 5), 1e-12, "unit eigenvectors")
	w, err := linalg.Eigvals(a)
	require.NoError(t, err)
	near(t, w, l, 0, "eigvals = eig's values")

	rot, err := tensor.FromFloat64([]float64{0, -2, 2, 0}, 2, 2)
	require.NoError(t, err)
	l, _, err = linalg.Eig(rot)
	require.NoError(t, err)
	want, err := tensor.FromComplex128([]complex128{2i, -2i}, 2)
	require.NoError(t, err)
	near(t, l, want, 1e-15, "the eigenvalues of a rotation, positive imaginary part first")
}

// TestEigGauge: a loss of Re V (which depends on the eigenvectors' phases) is
// refused, as in PyTorch; |V| and the eigenvalues are accepted.
func TestEigGauge(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	a := randn(rng, tensor.Float64, 4, 4)
	loss := func(f func(t *core.Tape[*tensor.Dense], l, v cr.NodeID) cr.NodeID) error {
		_, _, err := hvp.Grad(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			ys := t.ApplyMulti(linalg.EigOp(), x[0])
			return t.Apply(reduce.SumOp(nil, false), f(t, ys[0], ys[1]))
		}, []*tensor.Dense{a})
		return err
	}
	c := randn(rng, tensor.Complex128, 4, 4)
	err := loss(func(t *core.Tape[*tensor.Dense], _, v cr.NodeID) cr.NodeID {
		return t.Apply(elementwise.RealOp, t.Apply(elementwise.MulOp, v, t.Constant(c)))
	})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "phase")
	require.NoError(t, loss(func(t *core.Tape[*tensor.Dense], l, v cr.NodeID) cr.NodeID {
		return t.Apply(elementwise.AddOp, t.Apply(elementwise.AbsOp, v), t.Apply(elementwise.RealOp, t.Apply(permute.UnsqueezeOp(-2), l)))
	}))
}

// TestEigErrors: complex input (no complex eigensolver) and non-finite entries
// (on which the QR iterations would not terminate) are errors.
func TestEigErrors(t *testing.T) {
	c, err := tensor.FromComplex128([]complex128{1, 2i, 3, 4}, 2, 2)
	require.NoError(t, err)
	_, _, err = linalg.Eig(c)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "float64-only")
	_, err = linalg.Eigvals(c)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	for _, v := range []float64{math.NaN(), math.Inf(-1)} {
		a, err := tensor.FromFloat64([]float64{1, 2, v, 4}, 2, 2)
		require.NoError(t, err)
		_, _, err = linalg.Eig(a)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		require.ErrorContains(t, err, "non-finite")
		_, err = linalg.Eigvals(a)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
	}
	_, _, err = linalg.Eig(tensor.New(tensor.Float64, 2, 3))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
}

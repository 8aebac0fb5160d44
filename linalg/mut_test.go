package linalg_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// Tests added for mutants that survived the package's tests (see the mutation
// notes of Reliability round 3).

// A complex Hermitian matrix that is only semi-definite (a zero pivot), or has a
// NaN, is not positive-definite: Cholesky refuses it instead of returning
// infinities.
func TestComplexCholeskyRefusesSemidefiniteAndNaN(t *testing.T) {
	for name, d := range map[string][]complex128{
		"singular": {1, 1i, -1i, 1},                   // det 0
		"nan":      {complex(math.NaN(), 0), 0, 0, 1}, // NaN pivot
		"zero row": {4, 0, 0, 0},                      // second pivot 0
	} {
		a, err := tensor.FromComplex128(d, 2, 2)
		require.NoError(t, err)
		for _, upper := range []bool{false, true} {
			_, err := linalg.Cholesky(a, upper)
			assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%s, upper %v", name, upper)
		}
	}
}

// The gradient of det at the zero complex matrix is conj(adj(0)): 1 for a 1 x 1
// matrix, 0 for a larger one (the adjugate's contour average, with its radius
// taken as 1 when A has no scale of its own).
func TestComplexDetGradientAtZero(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		a := tp.Leaf(tensor.New(tensor.Complex128, n, n))
		y := tp.Apply(linalg.DetOp(), a)
		one, err := tensor.FromComplex128([]complex128{1})
		require.NoError(t, err)
		g, err := tp.BackwardSeed(y, one)
		require.NoError(t, err)
		ga, ok := g.Of(a)
		require.True(t, ok)
		for i, v := range ga.Contiguous().Complex128s() {
			want := complex(0, 0)
			if n == 1 {
				want = 1
			}
			assert.InDelta(t, 0, cmplx.Abs(v-want), 1e-12, "n %d, element %d: %v", n, i, v)
		}
	}
}

// The matrix exponential scales A by 2^-s until its 1-norm is at most theta_13 =
// 5.37 before the Pade approximant: with norm 10.2 (s = 1) the result is exact to
// rounding, e^a on the diagonal.
func TestMatrixExpScalingAboveTheta13(t *testing.T) {
	for _, d := range [][2]float64{{10.2, -3}, {-10.2, 0.5}, {7, 20.5}} {
		a, err := tensor.FromFloat64([]float64{d[0], 0, 0, d[1]}, 2, 2)
		require.NoError(t, err)
		e, err := linalg.MatrixExp(a)
		require.NoError(t, err)
		got := e.Float64s()
		for k, want := range []float64{math.Exp(d[0]), 0, 0, math.Exp(d[1])} {
			assert.InDelta(t, want, got[k], 1e-13*math.Max(1, want), "diag %v, element %d", d, k)
		}
	}
}

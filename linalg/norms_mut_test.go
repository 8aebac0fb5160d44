package linalg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// normGrad returns the gradient of sum(vector_norm(x, ord, axes)) at x.
func normGrad(t *testing.T, x *tensor.Dense, ord float64, axes []int) []float64 {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xi := tp.Leaf(x)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(linalg.VectorNormOp(ord, axes, false), xi))
	g, err := tp.Backward(y)
	require.NoError(t, err)
	gx, ok := g.Of(xi)
	require.True(t, ok)
	return gx.Contiguous().Float64s()
}

// The ±Inf norms' pullback shares ybar among the elements that attain the norm;
// a NaN element makes the norm NaN, and then the NaN elements are those (PyTorch's
// mask "respecting NaNs"): the other elements get 0, not a share of a NaN
// cotangent. This was a bug: every element of a NaN lane got ybar / n.
func TestInfNormPullbackWithTiesAndNaN(t *testing.T) {
	nan := math.NaN()
	x, err := tensor.FromFloat64([]float64{1, nan, -3, 3, -3, 1}, 2, 3)
	require.NoError(t, err)
	g := normGrad(t, x, math.Inf(1), []int{1})
	assert.Equal(t, 0.0, g[0])
	assert.True(t, math.IsNaN(g[1]), "the NaN element carries the NaN")
	assert.Equal(t, 0.0, g[2])
	assert.Equal(t, []float64{0.5, -0.5, 0}, g[3:], "a tie shares ybar")

	g = normGrad(t, x, math.Inf(-1), []int{1})
	assert.Equal(t, 0.0, g[0])
	assert.True(t, math.IsNaN(g[1]))
	assert.Equal(t, []float64{0, 0, 0, 1}, g[2:], "the min of row 1 is its last element")

	inf := math.Inf(1)
	x, err = tensor.FromFloat64([]float64{1, inf, -3}, 3)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, 0}, normGrad(t, x, inf, nil), "an infinite element attains an infinite norm")
}

package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// With ceil_mode, a last window that would start past the input's end (in the
// right padding only) is dropped, as in PyTorch: length 5, kernel 2, stride 2,
// padding 1 gives 3 windows, not 4 (values from torch 1.13).
func TestCeilModeDropsAWindowStartingInThePadding(t *testing.T) {
	x := poolSeq(1, 1, 5)
	opts := []nn.PoolOption{nn.PoolStride(2), nn.PoolPadding(1), nn.CeilMode(true)}
	ys, err := cr.EvalMulti(nn.MaxPool1dOp([]int{2}, opts...), x)
	require.NoError(t, err)
	v, idx := ys[0], ys[1]
	assert.Equal(t, []int{1, 1, 3}, v.Shape())
	assert.Equal(t, []float64{0, 2, 4}, v.Float64s())
	assert.Equal(t, []float64{0, 2, 4}, idx.Float64s())
	a, err := cr.Eval(nn.AvgPool1dOp([]int{2}, opts...), x)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 1, 3}, a.Shape())
	assert.InDeltaSlice(t, []float64{0, 1.5, 3.5}, a.Float64s(), 1e-15)
}

// topk with k equal to the axis size is the full sort (allowed, as in PyTorch);
// k past it is an error.
func TestTopKWholeAxis(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{3, 1, 2}, 3)
	require.NoError(t, err)
	v, idx, err := nn.TopK(x, 3, 0, true)
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 2, 1}, v.Float64s())
	assert.Equal(t, []float64{0, 2, 1}, idx.Float64s())
	_, _, err = nn.TopK(x, 4, 0, true)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

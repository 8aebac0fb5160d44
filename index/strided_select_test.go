package index_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestIndexSelectStridedView checks index_select of a transposed view much
// larger than the selection (read through its strides, not copied whole)
// against the same selection of its row-major copy, along each axis of a 3-d
// view.
func TestIndexSelectStridedView(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := tensor.RandN(rng, tensor.Float64, 4, 3, 40)
	view, err := base.Permute(2, 0, 1) // 40 x 4 x 3, strided
	require.NoError(t, err)
	require.False(t, view.IsContiguous())
	for _, c := range []struct {
		axis int
		idx  []int
	}{
		{0, []int{5, 2, 39, 5}},
		{1, []int{3}},
		{2, []int{-1}},
		{0, nil},
	} {
		op := index.IndexSelectOp(c.axis, c.idx...)
		got, err := cr.Eval(op, view)
		require.NoError(t, err)
		want, err := cr.Eval(op, view.Contiguous())
		require.NoError(t, err)
		require.Equal(t, want.Shape(), got.Shape())
		require.Equal(t, want.Float64s(), got.Float64s(), "axis %d, index %v", c.axis, c.idx)
	}
}

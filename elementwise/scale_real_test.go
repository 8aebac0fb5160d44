package elementwise_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// A real factor scales as the same factor given as a complex number with no
// imaginary part, and keeps a real tensor real.
func TestScaleByRealFactor(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, -2, 3.5}, 3)
	require.NoError(t, err)
	a := 0.37
	got, err := elementwise.Scale(x, a)
	require.NoError(t, err)
	want, err := elementwise.Scale(x, complex(a, 0))
	require.NoError(t, err)
	assert.Equal(t, want.Float64s(), got.Float64s())
	assert.Equal(t, tensor.Float64, got.DType())
	assert.Equal(t, "scale", elementwise.ScaleOp(a).Name())

	z, err := tensor.FromComplex128([]complex128{1 + 2i}, 1)
	require.NoError(t, err)
	zs, err := elementwise.Scale(z, 2.0)
	require.NoError(t, err)
	assert.Equal(t, []complex128{2 + 4i}, zs.Complex128s())
}

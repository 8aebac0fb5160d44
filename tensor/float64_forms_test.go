package tensor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// The real forms of Set and Sum take and return float64, as a real program has.
func ExampleSumFloat64() {
	x := tensor.New(tensor.Float64, 2, 2)
	lambda := 0.25
	for i := range 2 {
		x.SetFloat64(lambda*float64(i+1), i, i) // a float64 variable, no complex(...)
	}
	fmt.Println(x.Float64s(), tensor.SumFloat64(x))
	// Output:
	// [0.25 0 0 0.5] 0.75
}

func TestSetFloat64(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	x.SetFloat64(2.5, 1, 2)
	assert.Equal(t, []float64{0, 0, 0, 0, 0, 2.5}, x.Float64s())

	// Through a view, the shared storage.
	xt, err := x.Transpose(0, 1)
	require.NoError(t, err)
	xt.SetFloat64(-1, 0, 1)
	assert.Equal(t, -1.0, x.AtFloat64(1, 0))

	z := tensor.New(tensor.Complex128, 2)
	z.Set(3+4i, 0)
	z.SetFloat64(7, 0)
	assert.Equal(t, complex(7, 0), z.At(0), "a complex element becomes real")

	assert.Panics(t, func() { x.SetFloat64(1, 2, 0) })
	assert.Panics(t, func() { x.SetFloat64(1, 0) })
}

func TestSumFloat64(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, 21.0, tensor.SumFloat64(x))
	assert.Equal(t, real(tensor.Sum(x)), tensor.SumFloat64(x))
	xt, err := x.Transpose(0, 1)
	require.NoError(t, err)
	assert.Equal(t, 21.0, tensor.SumFloat64(xt), "a strided view")
	assert.Equal(t, 0.0, tensor.SumFloat64(tensor.New(tensor.Float64, 0, 3)))
	assert.Equal(t, 1.0, tensor.SumFloat64(tensor.Scalar(1)))

	z, err := tensor.FromComplex128([]complex128{1 + 1i, 2 - 5i}, 2)
	require.NoError(t, err)
	assert.Equal(t, 3.0, tensor.SumFloat64(z), "the real part of the sum")
}

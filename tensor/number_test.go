package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// Complex128Of converts every Number exactly (an int up to 2^53), with no
// allocation.
func TestComplex128Of(t *testing.T) {
	assert.Equal(t, complex(-3, 0), tensor.Complex128Of(-3))
	assert.Equal(t, complex(1<<53, 0), tensor.Complex128Of(1<<53))
	assert.Equal(t, complex(float64(float32(0.1)), 0), tensor.Complex128Of(float32(0.1)))
	assert.Equal(t, complex(0.1, 0), tensor.Complex128Of(0.1))
	assert.Equal(t, complex(float64(float32(0.1)), -2), tensor.Complex128Of(complex64(complex(0.1, -2))))
	assert.Equal(t, 1-2i, tensor.Complex128Of(1-2i))
	h := 0.25
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = tensor.Complex128Of(h) }))
}

// Scale, Full and FullOf take an int, a real or a complex number, the same call
// for every dtype: a real number keeps a real tensor real, in its precision, and
// a complex one promotes it to the complex dtype of its precision.
func TestNumberParameters(t *testing.T) {
	h := 0.5 // a float64 variable, no complex(h, 0)
	for _, tc := range []struct {
		name string
		got  *tensor.Dense
		dt   tensor.DType
		want []complex128
	}{
		{"Scale float64 by int", tensor.Scale(tensor.Full(tensor.Float64, 3, 2), 2), tensor.Float64, []complex128{6, 6}},
		{"Scale float32 by float64 variable", tensor.Scale(tensor.Full(tensor.Float32, 3, 2), h), tensor.Float32, []complex128{1.5, 1.5}},
		{"Scale float32 by float32", tensor.Scale(tensor.Full(tensor.Float32, 3, 2), float32(0.25)), tensor.Float32, []complex128{0.75, 0.75}},
		{"Scale complex64 by complex64", tensor.Scale(tensor.Full(tensor.Complex64, 1i, 1), complex64(2i)), tensor.Complex64, []complex128{-2}},
		{"Scale float32 by complex promotes", tensor.Scale(tensor.Full(tensor.Float32, 2, 1), 1i), tensor.Complex64, []complex128{2i}},
		{"Scale float64 by complex promotes", tensor.Scale(tensor.Full(tensor.Float64, 2, 1), 1+1i), tensor.Complex128, []complex128{2 + 2i}},
		{"Full float32 of float64 rounds", tensor.Full(tensor.Float32, 0.1, 1), tensor.Float32, []complex128{complex(float64(float32(0.1)), 0)}},
		{"Full float64 of complex keeps the real part", tensor.Full(tensor.Float64, 2-1i, 1), tensor.Float64, []complex128{2}},
		{"Full complex128 of int", tensor.Full(tensor.Complex128, -1, 1), tensor.Complex128, []complex128{-1}},
		{"ScalarOf float32 of float64 variable", must(tensor.ScalarOf(tensor.Float32, h)), tensor.Float32, []complex128{0.5}},
		{"ScalarOf complex64 of complex64", must(tensor.ScalarOf(tensor.Complex64, complex64(1-1i))), tensor.Complex64, []complex128{1 - 1i}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.dt, tc.got.DType())
			w, err := tensor.AsType(tc.got, tensor.Complex128)
			require.NoError(t, err)
			assert.Equal(t, tc.want, w.Complex128s())
		})
	}
	_, err := tensor.FullOf(tensor.Float32, math.Pi, -1)
	assert.Error(t, err, "a negative dim")
	f, err := tensor.FullOf(tensor.Float32, math.Pi, 2)
	require.NoError(t, err)
	assert.Equal(t, []float32{math.Pi, math.Pi}, f.Float32s())
}

package elementwise_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// ScaleOp, ShiftOp and PowScalarOp take a tensor.Number: a real parameter (an int,
// a float64 variable, a float32) keeps a real tensor real and in its precision,
// and gives what the complex128 form of the same value gives; a complex one
// promotes.
func TestNumberParameters(t *testing.T) {
	h := 0.5
	x32, err := tensor.FromFloat32([]float32{1, 2, 4}, 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		op, same cr.Op[*tensor.Dense]
		dt       tensor.DType
	}{
		{"scale by a float64 variable", elementwise.ScaleOp(h), elementwise.ScaleOp(complex(h, 0)), tensor.Float32},
		{"scale by an int", elementwise.ScaleOp(3), elementwise.ScaleOp(3 + 0i), tensor.Float32},
		{"scale by a complex promotes", elementwise.ScaleOp(2i), elementwise.ScaleOp(complex64(2i)), tensor.Complex64},
		{"shift by a float32", elementwise.ShiftOp(float32(-1.5)), elementwise.ShiftOp(-1.5 + 0i), tensor.Float32},
		{"pow by an int", elementwise.PowScalarOp(2), elementwise.PowScalarOp(2 + 0i), tensor.Float32},
		{"pow by a float64 variable", elementwise.PowScalarOp(h), elementwise.PowScalarOp(complex(h, 0)), tensor.Float32},
		{"fill with a float64 variable", elementwise.FillOp(h), elementwise.FillOp(complex(h, 0)), tensor.Float32},
		{"fill with an int", elementwise.FillOp(-2), elementwise.FillOp(-2 + 0i), tensor.Float32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cr.Eval(tc.op, x32)
			require.NoError(t, err)
			want, err := cr.Eval(tc.same, x32)
			require.NoError(t, err)
			assert.Equal(t, tc.dt, got.DType())
			assert.True(t, tensor.EqualApprox(want, got, 0, 0), "%v, want %v", got, want)
		})
	}
}

// AddAlphaOp and SubAlphaOp take a tensor.Number too: a + h b for a float64 h on
// float32 operands stays float32, and agrees with the complex128 form.
func TestAlphaNumber(t *testing.T) {
	h := 0.25
	a, err := tensor.FromFloat32([]float32{1, 2}, 2)
	require.NoError(t, err)
	b, err := tensor.FromFloat32([]float32{4, -8}, 2)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		op, same cr.Op[*tensor.Dense]
		want     []float32
	}{
		{"add", elementwise.AddAlphaOp(h), elementwise.AddAlphaOp(complex(h, 0)), []float32{2, 0}},
		{"sub", elementwise.SubAlphaOp(h), elementwise.SubAlphaOp(complex(h, 0)), []float32{0, 4}},
		{"add with int alpha 1 is AddOp", elementwise.AddAlphaOp(1), elementwise.AddOp, []float32{5, -6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cr.Eval(tc.op, a, b)
			require.NoError(t, err)
			want, err := cr.Eval(tc.same, a, b)
			require.NoError(t, err)
			require.Equal(t, tensor.Float32, got.DType())
			assert.Equal(t, tc.want, got.Float32s())
			assert.Equal(t, want.Float32s(), got.Float32s())
		})
	}
}

// lambda/2 ||w||^2 with lambda a float64 variable: ScaleOp takes it as it is.
func ExampleScaleOp() {
	lambda := 0.1
	w, _ := tensor.FromFloat64([]float64{1, -2}, 2)
	sq, _ := elementwise.Square(w)
	y, _ := cr.Eval(elementwise.ScaleOp(lambda/2), sq)
	fmt.Println(y.DType(), y.Float64s())
	// Output: float64 [0.05 0.2]
}

package nn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestLinearValues(t *testing.T) {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	w, _ := tensor.FromFloat64([]float64{1, 0, -1, 0.5, 0.5, 0.5}, 2, 3)
	b, _ := tensor.FromFloat64([]float64{10, 20}, 2)
	y, err := nn.Linear(x, w, b)
	require.NoError(t, err)
	require.Equal(t, []int{2, 2}, y.Shape())
	require.InDeltaSlice(t, []float64{1 - 3 + 10, 3 + 20, 4 - 6 + 10, 7.5 + 20}, y.Float64s(), 1e-14)
	y, err = nn.Linear(x, w, nil)
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{-2, 3, -2, 7.5}, y.Float64s(), 1e-14)
}

func TestLinearBadInputs(t *testing.T) {
	f := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	for _, c := range []struct {
		name    string
		x, w, b *tensor.Dense
		want    error
	}{
		{"in features differ", f(4, 3), f(2, 5), nil, cr.ErrShapeMismatch},
		{"bias length", f(4, 3), f(2, 3), f(3), cr.ErrShapeMismatch},
		{"bias rank", f(4, 3), f(2, 3), f(1, 2), cr.ErrShapeMismatch},
		{"weight rank", f(4, 3), f(3), nil, cr.ErrInvalidArgument},
		{"scalar input", f(), f(2, 3), nil, cr.ErrInvalidArgument},
		{"complex input", tensor.New(tensor.Complex128, 4, 3), f(2, 3), nil, cr.ErrInvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := nn.Linear(c.x, c.w, c.b)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, "linear")
		})
	}
}

package nn_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The functions that evaluate an op without a tape, on inputs small enough to
// work out by hand: each must compute its own op with its own arguments.
func TestEagerForms(t *testing.T) {
	v := func(shape []int, xs ...float64) *tensor.Dense {
		d, err := tensor.FromFloat64(xs, shape...)
		require.NoError(t, err)
		return d
	}
	vec := func(xs ...float64) *tensor.Dense { return v([]int{len(xs)}, xs...) }
	ln2 := math.Ln2
	for _, tc := range []struct {
		name  string
		got   func() (*tensor.Dense, error)
		shape []int
		want  []float64
	}{
		{"Clamp", func() (*tensor.Dense, error) { return nn.Clamp(vec(-2, 0.5, 3), -1, 1) }, []int{3}, []float64{-1, 0.5, 1}},
		{"ClampTensor", func() (*tensor.Dense, error) {
			return nn.ClampTensor(vec(-2, 0.5, 3), vec(-1, -1, -1), vec(0, 0, 2))
		}, []int{3}, []float64{-1, 0, 2}},
		{"Cumprod", func() (*tensor.Dense, error) { return nn.Cumprod(vec(1, 2, 3), 0) }, []int{3}, []float64{1, 2, 6}},
		{"ReverseCumsum", func() (*tensor.Dense, error) { return nn.ReverseCumsum(vec(1, 2, 3), 0) }, []int{3}, []float64{6, 5, 3}},
		// h_0 = b_0, h_j = a_j h_{j-1} + b_j (a_0 unused)
		{"LinearScan", func() (*tensor.Dense, error) { return nn.LinearScan(vec(9, 2, 3), vec(1, 1, 1), 0) }, []int{3}, []float64{1, 3, 10}},
		// h_2 = b_2, h_j = a_{j+1} h_{j+1} + b_j
		{"ReverseLinearScan", func() (*tensor.Dense, error) { return nn.ReverseLinearScan(vec(9, 2, 3), vec(1, 1, 1), 0) }, []int{3}, []float64{9, 4, 1}},
		// d = (-0.5, 3): (0.125 + (3 - 0.5)) / 2
		{"HuberLoss", func() (*tensor.Dense, error) { return nn.HuberLoss(vec(0, 3), vec(0.5, 0), 1) }, []int{}, []float64{1.3125}},
		{"BCEWithLogits", func() (*tensor.Dense, error) { return nn.BCEWithLogits(vec(0, 0), vec(1, 0)) }, []int{}, []float64{ln2}},
		{"NLLLoss", func() (*tensor.Dense, error) { return nn.NLLLoss(v([]int{2, 2}, -1, -2, -3, -4), []int{1, 0}) }, []int{}, []float64{2.5}},
		{"CrossEntropyProbs", func() (*tensor.Dense, error) {
			return nn.CrossEntropyProbs(v([]int{1, 2}, 0, 0), v([]int{1, 2}, 1, 0))
		}, []int{}, []float64{ln2}},
		{"ConvTranspose1d", func() (*tensor.Dense, error) {
			return nn.ConvTranspose1d(v([]int{1, 1, 2}, 1, 2), v([]int{1, 1, 2}, 1, 1), nil)
		}, []int{1, 1, 3}, []float64{1, 3, 2}},
		{"ConvTranspose2d", func() (*tensor.Dense, error) {
			return nn.ConvTranspose2d(v([]int{1, 1, 1, 1}, 2), v([]int{1, 1, 2, 2}, 1, 2, 3, 4), vec(1))
		}, []int{1, 1, 2, 2}, []float64{3, 5, 7, 9}},
		{"ConvTranspose3d", func() (*tensor.Dense, error) {
			return nn.ConvTranspose3d(v([]int{1, 1, 1, 1, 1}, 2), v([]int{1, 1, 1, 1, 2}, 1, 2), nil)
		}, []int{1, 1, 1, 1, 2}, []float64{2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := tc.got()
			require.NoError(t, err)
			assert.Equal(t, tc.shape, y.Shape())
			assert.InDeltaSlice(t, tc.want, y.Float64s(), 1e-15)
		})
	}
}

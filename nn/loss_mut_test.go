package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// Huber's second derivative is 1 strictly inside the threshold and 0 from it on,
// at |d| = delta too, as in PyTorch (torch 1.13: d = 1, -1, 0.5, 1.5 with delta 1
// give 0, 0, 1, 0).
func TestHuberSecondDerivativeAtTheThreshold(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, err := tensor.FromFloat64([]float64{1, -1, 0.5, 1.5}, 4)
	require.NoError(t, err)
	x := tp.Leaf(xv)
	y := tp.Apply(nn.HuberLossOp(1, nn.WithReduction(nn.ReductionSum)), x, tp.Constant(tensor.New(tensor.Float64, 4)))
	require.NoError(t, tp.Err())
	tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: tensor.Ones(tensor.Float64, 4)})
	require.NoError(t, err)
	g, hv, err := tp.BackwardWithTangents(y, tan)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	hx, _ := hv.Of(x)
	assert.Equal(t, []float64{1, -1, 0.5, 1}, gx.Contiguous().Float64s())
	assert.Equal(t, []float64{0, 0, 1, 0}, hx.Contiguous().Float64s())
}

// Label smoothing 1 (the uniform target) is allowed, as in PyTorch; the values are
// torch 1.13's.
func TestCrossEntropyFullLabelSmoothing(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{0.5, -1, 2, 0.1, 0.3, -0.7}, 2, 3)
	require.NoError(t, err)
	for _, c := range []struct{ eps, want float64 }{{1, 1.4618318924054927}, {0.3, 0.8668318924054925}} {
		l, err := nn.CrossEntropy(x, []int{2, 0}, nn.LabelSmoothing(c.eps))
		require.NoError(t, err, "eps %v", c.eps)
		assert.InDelta(t, c.want, l.Float64s()[0], 1e-14, "eps %v", c.eps)
	}
}

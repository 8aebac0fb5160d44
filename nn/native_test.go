package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The ops with native float32 kernels (convolutions, pools, interpolate): float32
// inputs give float32 outputs and float32 input cotangents, also for a float64
// cotangent (rounded to the output's dtype first, as the widened rules round);
// float32 next to float64 gives float64 (tensor.PromoteTypes); complex64 input
// is an error wrapping chainrules.ErrInvalidArgument that names the op.
func TestNativeFloat32Dtypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x4 := func(dt tensor.DType) *tensor.Dense { return tensor.RandN(rng, dt, 2, 3, 6, 6) }
	for _, c := range []struct {
		op cr.Op[*tensor.Dense]
		w  []int // the weight's shape, nil for a one-input op
	}{
		{nn.Conv2dOp(nn.Padding(1)), []int{4, 3, 3, 3}},
		{nn.ConvTranspose2dOp(nn.Stride(2)), []int{3, 2, 2, 2}},
		{nn.Conv2dOp(nn.Groups(3)), []int{3, 1, 1, 1}},
		{nn.MaxPool2dOp([]int{2}), nil},
		{nn.MaxPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), nil},
		{nn.AvgPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), nil},
		{nn.AdaptiveAvgPool2dOp(4), nil},
		{nn.InterpolateOp("bilinear", nn.InterpSize(7, 5)), nil},
	} {
		t.Run(c.op.Name(), func(t *testing.T) {
			x := []*tensor.Dense{x4(tensor.Float32)}
			if c.w != nil {
				x = append(x, tensor.RandN(rng, tensor.Float32, c.w...))
			}
			in := make([]cr.NodeID, len(x))
			for i := range in {
				in[i] = cr.NewNodeID(1, i)
			}
			out := make([]*tensor.Dense, c.op.NumOutputs())
			rule, err := c.op.Apply(in, x, out)
			require.NoError(t, err)
			for _, y := range out {
				assert.Equal(t, tensor.Float32, y.DType())
			}
			ybar := make([]*tensor.Dense, len(out))
			has := make([]bool, len(out))
			ybar[0], has[0] = tensor.RandN(rng, tensor.Float64, out[0].Shape()...), true
			if len(out) == 2 {
				ybar[1] = tensor.New(tensor.Float32, out[1].Shape()...)
			}
			cts, err := rule.Pullback(ybar, has, nil)
			require.NoError(t, err)
			require.Len(t, cts, len(x))
			for _, ct := range cts {
				assert.Equal(t, tensor.Float32, ct.Value.DType())
			}

			if c.w != nil { // float32 x, float64 weight
				mixed := []*tensor.Dense{x[0], tensor.RandN(rng, tensor.Float64, c.w...)}
				y, err := cr.EvalMulti(c.op, mixed...)
				require.NoError(t, err)
				assert.Equal(t, tensor.Float64, y[0].DType())
			}

			z := []*tensor.Dense{x4(tensor.Complex64)}
			if c.w != nil {
				z = append(z, tensor.RandN(rng, tensor.Complex64, c.w...))
			}
			_, err = cr.EvalMulti(c.op, z...)
			require.Error(t, err)
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.Contains(t, err.Error(), c.op.Name())
		})
	}
}

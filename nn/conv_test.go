package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

var convFamilies = []string{"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
	"conv1d_weight_grad", "conv2d_weight_grad", "conv3d_weight_grad"}

// The convolution entries alone, to order 4 (TestRulesPassRuletest runs them with
// the rest of the registry).
func TestConvRuletest(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, nn.Register(reg))
	for _, name := range convFamilies {
		e, ok := reg.Lookup(name)
		require.True(t, ok, name)
		for _, s := range e.Samples(rand.New(rand.NewPCG(1, 2))) {
			t.Run(name+"/"+s.Name, func(t *testing.T) {
				ruletest.Check(t, tensor.Space{}, s.Op, s.Inputs, ruletest.Config{MinOrder: 4})
			})
		}
	}
}

// The recorded pullbacks (conv_transpose and weight-gradient ops recording each
// other) against Pullback, the second-order rule and third derivatives.
func TestConvRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, nn.Register(reg))
	rng := rand.New(rand.NewPCG(7, 11))
	for _, name := range convFamilies {
		e, ok := reg.Lookup(name)
		require.True(t, ok, name)
		for _, s := range e.Samples(rng) {
			t.Run(name+"/"+s.Name, func(t *testing.T) {
				recordtest.CheckCase(t, rng, recordtest.Case{Op: s.Op, Inputs: s.Inputs})
			})
		}
	}
}

// Bad inputs are typed errors naming the op and the sizes, never panics.
func TestConvErrors(t *testing.T) {
	z := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	cases := []struct {
		name     string
		op       cr.Op[*tensor.Dense]
		in       []*tensor.Dense
		sentinel error
		contains string
	}{
		{"channels", nn.Conv2dOp(), inputs(z(1, 3, 5, 5), z(2, 2, 3, 3)), cr.ErrShapeMismatch, "3 channels"},
		{"groups do not divide", nn.Conv2dOp(nn.Groups(2)), inputs(z(1, 3, 5, 5), z(2, 1, 3, 3)), cr.ErrShapeMismatch, "groups 2"},
		{"groups do not divide out", nn.Conv1dOp(nn.Groups(2)), inputs(z(1, 4, 5), z(3, 2, 3)), cr.ErrShapeMismatch, "groups 2"},
		{"groups zero", nn.Conv1dOp(nn.Groups(0)), inputs(z(1, 4, 5), z(4, 4, 3)), cr.ErrInvalidArgument, "groups is 0"},
		{"kernel too large", nn.Conv2dOp(nn.Padding(1)), inputs(z(1, 1, 3, 3), z(1, 1, 6, 2)), cr.ErrShapeMismatch, "spans 6"},
		{"dilated kernel too large", nn.Conv1dOp(nn.Dilation(3)), inputs(z(1, 1, 6), z(1, 1, 3)), cr.ErrShapeMismatch, "spans 7"},
		{"stride zero", nn.Conv2dOp(nn.Stride(0)), inputs(z(1, 1, 5, 5), z(1, 1, 3, 3)), cr.ErrInvalidArgument, "stride"},
		{"dilation negative", nn.Conv3dOp(nn.Dilation(1, -1, 1)), inputs(z(1, 1, 5, 5, 5), z(1, 1, 3, 3, 3)), cr.ErrInvalidArgument, "dilation"},
		{"negative padding", nn.Conv2dOp(nn.Padding(-1)), inputs(z(1, 1, 5, 5), z(1, 1, 3, 3)), cr.ErrInvalidArgument, "padding"},
		{"tuple length", nn.Conv2dOp(nn.Stride(1, 2, 3)), inputs(z(1, 1, 5, 5), z(1, 1, 3, 3)), cr.ErrInvalidArgument, "3 values"},
		{"rank of x", nn.Conv2dOp(), inputs(z(1, 5, 5), z(1, 1, 3, 3)), cr.ErrShapeMismatch, "rank 4"},
		{"rank of w", nn.Conv1dOp(), inputs(z(1, 1, 5), z(1, 3)), cr.ErrShapeMismatch, "rank 3"},
		{"bias length", nn.Conv2dOp(), inputs(z(1, 1, 5, 5), z(2, 1, 3, 3), z(3)), cr.ErrShapeMismatch, "bias"},
		{"bias rank", nn.Conv1dOp(), inputs(z(1, 1, 5), z(2, 1, 3), z(2, 1)), cr.ErrShapeMismatch, "bias"},
		{"complex", nn.Conv1dOp(), inputs(tensor.New(tensor.Complex128, 1, 1, 5), z(2, 1, 3)), cr.ErrInvalidArgument, "conv1d"},
		{"one input", nn.Conv1dOp(), inputs(z(1, 1, 5)), cr.ErrInvalidArgument, "conv1d"},
		{"output_padding on conv", nn.Conv1dOp(nn.OutputPadding(1)), inputs(z(1, 1, 5), z(1, 1, 3)), cr.ErrInvalidArgument, "output_padding"},
		{"same with stride 2", nn.Conv2dOp(nn.PaddingSame(), nn.Stride(1, 2)), inputs(z(1, 1, 5, 5), z(1, 1, 3, 3)), cr.ErrInvalidArgument, "stride 1"},
		{"reflect padding too large", nn.Conv1dOp(nn.Padding(3), nn.PaddingMode(nn.PadReflect)), inputs(z(1, 1, 3), z(1, 1, 3)), cr.ErrInvalidArgument, "reflect padding (3, 3)"},
		{"circular padding too large", nn.Conv1dOp(nn.Padding(4), nn.PaddingMode(nn.PadCircular)), inputs(z(1, 1, 3), z(1, 1, 3)), cr.ErrInvalidArgument, "circular padding"},
		{"unknown padding mode", nn.Conv1dOp(nn.PaddingMode("mirror")), inputs(z(1, 1, 3), z(1, 1, 3)), cr.ErrInvalidArgument, "mirror"},
		{"transpose channels", nn.ConvTranspose2dOp(), inputs(z(1, 3, 4, 4), z(2, 2, 3, 3)), cr.ErrShapeMismatch, "3 channels"},
		{"transpose groups", nn.ConvTranspose1dOp(nn.Groups(2)), inputs(z(1, 3, 4), z(3, 2, 3)), cr.ErrShapeMismatch, "groups 2"},
		{"transpose output_padding", nn.ConvTranspose1dOp(nn.Stride(2), nn.OutputPadding(2)), inputs(z(1, 1, 4), z(1, 1, 3)), cr.ErrInvalidArgument, "output_padding [2]"},
		{"transpose output_padding dilation", nn.ConvTranspose1dOp(nn.Dilation(2), nn.OutputPadding(2)), inputs(z(1, 1, 4), z(1, 1, 3)), cr.ErrInvalidArgument, "dilation [2]"},
		{"transpose negative output_padding", nn.ConvTranspose1dOp(nn.OutputPadding(-1)), inputs(z(1, 1, 4), z(1, 1, 3)), cr.ErrInvalidArgument, "output_padding"},
		{"transpose output size", nn.ConvTranspose1dOp(nn.Padding(3)), inputs(z(1, 1, 2), z(1, 1, 2)), cr.ErrShapeMismatch, "output size -3"},
		{"transpose padding mode", nn.ConvTranspose2dOp(nn.PaddingMode(nn.PadReflect)), inputs(z(1, 1, 4, 4), z(1, 1, 3, 3)), cr.ErrInvalidArgument, "zeros"},
		{"transpose same", nn.ConvTranspose1dOp(nn.PaddingSame()), inputs(z(1, 1, 4), z(1, 1, 3)), cr.ErrInvalidArgument, "same"},
		{"transpose bias", nn.ConvTranspose1dOp(), inputs(z(1, 1, 4), z(1, 2, 3), z(1)), cr.ErrShapeMismatch, "want [2]"},
		{"transpose rank", nn.ConvTranspose3dOp(), inputs(z(1, 1, 4, 4), z(1, 2, 3, 3)), cr.ErrShapeMismatch, "rank 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cr.Eval(c.op, c.in...)
			require.ErrorIs(t, err, c.sentinel)
			require.ErrorContains(t, err, c.op.Name())
			require.ErrorContains(t, err, c.contains)
		})
	}
}

// Empty batches and channels give empty values and gradients, not panics.
func TestConvEmpty(t *testing.T) {
	z := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	z32 := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float32, s...) }
	bias := func(n int) *tensor.Dense { return tensor.Full(tensor.Float64, 1.5, n) }
	bias32 := func(n int) *tensor.Dense { return tensor.Full(tensor.Float32, 1.5, n) }
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
		want []int
	}{
		{"no samples", nn.Conv2dOp(nn.Padding(1)), inputs(z(0, 2, 4, 4), z(3, 2, 3, 3), z(3)), []int{0, 3, 4, 4}},
		{"no output channels", nn.Conv1dOp(), inputs(z(2, 2, 5), z(0, 2, 3), z(0)), []int{2, 0, 3}},
		{"no output channels, long", nn.Conv1dOp(nn.Padding(1)), inputs(z(2, 2, 500), z(0, 2, 3), z(0)), []int{2, 0, 500}},
		{"transpose no samples", nn.ConvTranspose1dOp(nn.Stride(2)), inputs(z(0, 2, 4), z(2, 3, 3), z(3)), []int{0, 3, 9}},
		// No input channels: each output is its bias (a sum over no terms).
		{"no input channels", nn.Conv2dOp(), inputs(z(2, 0, 5, 5), z(3, 0, 3, 3), bias(3)), []int{2, 3, 3, 3}},
		{"no input channels, padded", nn.Conv2dOp(nn.Padding(1)), inputs(z(2, 0, 40, 40), z(3, 0, 3, 3), bias(3)), []int{2, 3, 40, 40}},
		{"no input channels, float32", nn.Conv2dOp(), inputs(z32(2, 0, 5, 5), z32(3, 0, 3, 3), bias32(3)), []int{2, 3, 3, 3}},
		{"transpose no input channels", nn.ConvTranspose2dOp(), inputs(z(1, 0, 5, 5), z(0, 2, 3, 3), bias(2)), []int{1, 2, 7, 7}},
		{"no samples, float32", nn.Conv1dOp(), inputs(z32(0, 2, 5), z32(3, 2, 3)), []int{0, 3, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			ids := make([]cr.NodeID, len(c.in))
			for k, v := range c.in {
				ids[k] = tp.Leaf(v)
			}
			y := tp.Apply(c.op, ids...)
			require.NoError(t, tp.Err())
			yv, err := tp.Value(y)
			require.NoError(t, err)
			require.Equal(t, c.want, yv.Shape())
			if len(c.in) == 3 && c.in[2].Size() > 0 && c.in[2].At(0) == 1.5 {
				y64, err := tensor.AsType(yv, tensor.Float64)
				require.NoError(t, err)
				for k, v := range y64.Float64s() {
					require.Equal(t, 1.5, v, "y[%d] is not the bias", k)
				}
			}
			g, err := tp.BackwardSeed(y, tensor.New(yv.DType(), c.want...))
			require.NoError(t, err)
			for k, id := range ids {
				gv, ok := g.Of(id)
				require.True(t, ok)
				require.Equal(t, c.in[k].Shape(), gv.Shape())
			}
		})
	}
}

// Inputs recorded as constants (a first layer's data; a frozen weight) are left
// out of the masked rules, to every order.
func TestConvRecordedConstants(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f64 := func(s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	for _, c := range []recordtest.Case{
		{Name: "conv2d constant x", Op: nn.Conv2dOp(nn.Padding(1), nn.Stride(2)), Inputs: inputs(f64(1, 2, 5, 4), f64(3, 2, 3, 3), f64(3)), Consts: []bool{true, false, false}},
		{Name: "conv1d constant weight", Op: nn.Conv1dOp(nn.PaddingMode(nn.PadReflect), nn.Padding(1)), Inputs: inputs(f64(2, 2, 6), f64(2, 2, 3)), Consts: []bool{false, true}},
		{Name: "conv_transpose2d constant bias", Op: nn.ConvTranspose2dOp(nn.Stride(2), nn.OutputPadding(1)), Inputs: inputs(f64(1, 2, 3, 3), f64(2, 2, 2, 3), f64(2)), Consts: []bool{false, false, true}},
	} {
		t.Run(c.Name, func(t *testing.T) { recordtest.CheckCase(t, rng, c) })
	}
}

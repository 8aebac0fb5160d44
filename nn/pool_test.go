package nn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func poolSeq(shape ...int) *tensor.Dense {
	t := tensor.New(tensor.Float64, shape...)
	for i := range t.Float64s() {
		t.Float64s()[i] = float64(i)
	}
	return t
}

// Bad arguments and shapes are typed errors that name the op and the sizes.
func TestPoolBadInput(t *testing.T) {
	k := func(v ...int) []int { return v }
	x4 := poolSeq(1, 2, 5, 5)
	for _, c := range []struct {
		name     string
		op       cr.Op[*tensor.Dense]
		x        *tensor.Dense
		sentinel error
		contains string
	}{
		{"zero kernel", nn.MaxPool2dOp(k(0)), x4, cr.ErrInvalidArgument, "kernel_size [0 0]"},
		{"negative stride", nn.MaxPool2dOp(k(2), nn.PoolStride(-1)), x4, cr.ErrInvalidArgument, "stride [-1 -1]"},
		{"zero dilation", nn.MaxPool1dOp(k(2), nn.PoolDilation(0)), poolSeq(1, 2, 5), cr.ErrInvalidArgument, "dilation [0]"},
		{"padding above half kernel", nn.MaxPool2dOp(k(3), nn.PoolPadding(2)), x4, cr.ErrInvalidArgument, "padding [2 2] must be at most half of kernel_size [3 3]"},
		{"negative padding", nn.AvgPool2dOp(k(3), nn.PoolPadding(-1)), x4, cr.ErrInvalidArgument, "padding [-1 -1]"},
		{"kernel larger than input", nn.MaxPool2dOp(k(6)), x4, cr.ErrInvalidArgument, "output size 0 < 1"},
		{"avg kernel larger than input", nn.AvgPool3dOp(k(2, 2, 6)), poolSeq(1, 2, 2, 5), cr.ErrInvalidArgument, "output size 0 < 1"},
		{"wrong rank", nn.MaxPool2dOp(k(2)), poolSeq(5, 5), cr.ErrShapeMismatch, "max_pool2d: input of shape [5 5], want 3-D"},
		{"wrong rank 3d", nn.AvgPool3dOp(k(2)), poolSeq(1, 2, 3, 4, 4, 1), cr.ErrShapeMismatch, "avg_pool3d: input of shape [1 2 3 4 4 1]"},
		{"kernel of 3 values in 2d", nn.MaxPool2dOp(k(2, 2, 2)), x4, cr.ErrInvalidArgument, "kernel_size has 3 values"},
		{"empty spatial axis", nn.AvgPool1dOp(k(1)), poolSeq(1, 2, 0), cr.ErrShapeMismatch, "empty spatial axis"},
		{"dilation on avg", nn.AvgPool2dOp(k(2), nn.PoolDilation(2)), x4, cr.ErrInvalidArgument, "dilation"},
		{"divisor on avg_pool1d", nn.AvgPool1dOp(k(2), nn.DivisorOverride(2)), poolSeq(1, 2, 5), cr.ErrInvalidArgument, "avg_pool1d"},
		{"zero divisor", nn.AvgPool2dOp(k(2), nn.DivisorOverride(0)), x4, cr.ErrInvalidArgument, "divisor_override must not be 0"},
		{"divisor on max", nn.MaxPool2dOp(k(2), nn.DivisorOverride(3)), x4, cr.ErrInvalidArgument, "average pooling"},
		{"adaptive zero size", nn.AdaptiveAvgPool2dOp(0, 2), x4, cr.ErrInvalidArgument, "output_size [0 2]"},
		{"adaptive max rank", nn.AdaptiveMaxPool1dOp(2), x4, cr.ErrShapeMismatch, "adaptive_max_pool1d: input of shape [1 2 5 5]"},
		{"interp both size and scale", nn.InterpolateOp("nearest", nn.InterpSize(3), nn.InterpScaleFactor(2)), x4, cr.ErrInvalidArgument, "exactly one of size and scale_factor"},
		{"interp neither", nn.InterpolateOp("bilinear"), x4, cr.ErrInvalidArgument, "exactly one"},
		{"interp align with nearest", nn.InterpolateOp("nearest", nn.InterpSize(3), nn.AlignCorners(false)), x4, cr.ErrInvalidArgument, "align_corners"},
		{"interp bilinear on 3-D", nn.InterpolateOp("bilinear", nn.InterpSize(3)), poolSeq(1, 2, 5), cr.ErrShapeMismatch, "mode bilinear takes a 4-D input, got shape [1 2 5]"},
		{"interp nearest on 2-D", nn.InterpolateOp("nearest", nn.InterpSize(3)), poolSeq(2, 5), cr.ErrShapeMismatch, "shape [2 5]"},
		{"interp unknown mode", nn.InterpolateOp("bicubic", nn.InterpSize(3)), x4, cr.ErrInvalidArgument, `"bicubic"`},
		{"interp zero size", nn.InterpolateOp("nearest", nn.InterpSize(0, 3)), x4, cr.ErrInvalidArgument, "output size [0 3]"},
		{"interp small scale", nn.InterpolateOp("nearest", nn.InterpScaleFactor(0.1)), x4, cr.ErrInvalidArgument, "output size [0 0]"},
		{"interp negative scale", nn.InterpolateOp("bilinear", nn.InterpScaleFactor(-2)), x4, cr.ErrInvalidArgument, "scale_factor [-2]"},
		{"interp size of 3 values", nn.InterpolateOp("bilinear", nn.InterpSize(2, 2, 2)), x4, cr.ErrInvalidArgument, "size has 3 values"},
		{"complex input", nn.AvgPool1dOp(k(2)), tensor.New(tensor.Complex128, 1, 2, 4), cr.ErrInvalidArgument, "float64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NotPanics(t, func() {
				_, err := cr.EvalMulti(c.op, c.x)
				require.ErrorIs(t, err, c.sentinel)
				require.ErrorContains(t, err, c.op.Name())
				require.ErrorContains(t, err, c.contains)
			})
		})
	}
}

// Values, indices and output sizes on a small input, worked by hand; ties go to the
// first maximum.
func TestMaxPoolValues(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{
		1, 3, 3, 0,
		2, 3, 5, 5,
		7, 7, 1, 1,
		7, 7, 1, 9}, 1, 1, 4, 4)
	require.NoError(t, err)
	v, idx, err := nn.MaxPool2d(x, []int{2})
	require.NoError(t, err)
	require.Equal(t, []int{1, 1, 2, 2}, v.Shape())
	require.Equal(t, []float64{3, 5, 7, 9}, v.Float64s())
	require.Equal(t, []float64{1, 6, 8, 15}, idx.Float64s())

	// 3x3, stride 2, padding 1, ceil mode: windows start at -1, 1, 3 (the last is
	// kept since it starts inside the input).
	v, idx, err = nn.MaxPool2d(x, []int{3}, nn.PoolStride(2), nn.PoolPadding(1), nn.CeilMode(true))
	require.NoError(t, err)
	require.Equal(t, []int{1, 1, 3, 3}, v.Shape())
	require.Equal(t, []float64{3, 5, 5, 7, 9, 9, 7, 9, 9}, v.Float64s())
	require.Equal(t, []float64{1, 6, 7, 8, 15, 15, 12, 15, 15}, idx.Float64s())

	// The gradient of the sum of the maxima adds up at a position shared by windows.
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xi := tp.Leaf(x)
	y := tp.ApplyMulti(nn.MaxPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1), nn.CeilMode(true)), xi)
	g, err := tp.BackwardSeed(y[0], tensor.Ones(tensor.Float64, 1, 1, 3, 3))
	require.NoError(t, err)
	gx, ok := g.Of(xi)
	require.True(t, ok)
	require.Equal(t, []float64{0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 4}, gx.Float64s())
}

func TestAvgPoolValues(t *testing.T) {
	x := poolSeq(1, 4)
	// k 3, s 2, p 1, ceil: windows [-1, 2), [1, 4), [3, 5) (clipped to the padding).
	y, err := cr.Eval(nn.AvgPool1dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1), nn.CeilMode(true)), x)
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{1.0 / 3, 2, 3.0 / 2}, y.Float64s(), 1e-15)
	y, err = cr.Eval(nn.AvgPool1dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1), nn.CeilMode(true), nn.CountIncludePad(false)), x)
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{0.5, 2, 3}, y.Float64s(), 1e-15)
	y, err = nn.AvgPool2d(poolSeq(1, 3, 3), []int{2}, nn.PoolStride(1), nn.DivisorOverride(2))
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{4, 6, 10, 12}, y.Float64s(), 1e-15)
}

func TestAdaptivePoolValues(t *testing.T) {
	// L = 5, out = 3: windows [0, 2), [1, 4), [3, 5).
	x, err := tensor.FromFloat64([]float64{1, 4, 2, 0, 3}, 1, 5)
	require.NoError(t, err)
	y, err := cr.Eval(nn.AdaptiveAvgPool1dOp(3), x)
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{2.5, 2, 1.5}, y.Float64s(), 1e-15)
	ys, err := cr.EvalMulti(nn.AdaptiveMaxPool1dOp(3), x)
	require.NoError(t, err)
	require.Equal(t, []float64{4, 4, 3}, ys[0].Float64s())
	require.Equal(t, []float64{1, 1, 4}, ys[1].Float64s())
}

// Nearest and linear interpolation on a line, worked by hand.
func TestInterpolateValues(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{0, 10, 20}, 1, 1, 3)
	require.NoError(t, err)
	// size 5: scale 3/5, sources floor(0, 0.6, 1.2, 1.8, 2.4) = 0 0 1 1 2.
	y, err := nn.Interpolate(x, "nearest", nn.InterpSize(5))
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0, 10, 10, 20}, y.Float64s())
	// align_corners: sources 0, 0.5, 1, 1.5, 2.
	y, err = nn.Interpolate(x, "linear", nn.InterpSize(5), nn.AlignCorners(true))
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{0, 5, 10, 15, 20}, y.Float64s(), 1e-12)
	// half-pixel centres: sources max(0.6 (j + 1/2) - 1/2, 0) = 0, 0.4, 1, 1.6, 2.2 (clamped to the edge).
	y, err = nn.Interpolate(x, "linear", nn.InterpSize(5))
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{0, 4, 10, 16, 20}, y.Float64s(), 1e-12)
}

func ExampleMaxPool2dOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{
		1, 2, 0, 1,
		4, 3, 1, 5,
		0, 1, 2, 2,
		6, 1, 0, 3}, 1, 1, 4, 4)
	x := tp.Leaf(xv)
	// 2x2 windows, stride 2: the outputs are the values and the indices.
	y := tp.ApplyMulti(nn.MaxPool2dOp([]int{2}), x)
	v, _ := tp.Value(y[0])
	idx, _ := tp.Value(y[1])
	// The gradient of the sum of the maxima: 1 at each argmax.
	g, _ := tp.BackwardSeed(y[0], tensor.Ones(tensor.Float64, 1, 1, 2, 2))
	gx, _ := g.Of(x)
	fmt.Println("values ", v.Float64s())
	fmt.Println("indices", idx.Float64s())
	fmt.Println("grad   ", gx.Float64s())
	// Output:
	// values  [4 5 6 3]
	// indices [4 7 12 15]
	// grad    [0 0 0 0 1 0 0 1 0 0 0 0 1 0 0 1]
}

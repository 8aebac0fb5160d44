package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestNormBadInputs(t *testing.T) {
	f := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	aff := nn.Affine(true, true)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		x    []*tensor.Dense
		want error
	}{
		{"layer_norm shape not trailing", nn.LayerNormOp([]int{3}), []*tensor.Dense{f(3, 4)}, cr.ErrShapeMismatch},
		{"layer_norm weight shape", nn.LayerNormOp([]int{4}, aff), []*tensor.Dense{f(3, 4), f(3), f(4)}, cr.ErrShapeMismatch},
		{"layer_norm bias shape", nn.LayerNormOp([]int{4}, aff), []*tensor.Dense{f(3, 4), f(4), f(1, 4)}, cr.ErrShapeMismatch},
		{"layer_norm negative eps", nn.LayerNormOp([]int{4}, nn.NormEps(-1)), []*tensor.Dense{f(3, 4)}, cr.ErrInvalidArgument},
		{"layer_norm missing bias input", nn.LayerNormOp([]int{4}, aff), []*tensor.Dense{f(3, 4), f(4)}, cr.ErrInvalidArgument},
		{"layer_norm running stats", nn.LayerNormOp([]int{4}, nn.RunningStats(f(4), f(4))), []*tensor.Dense{f(3, 4)}, cr.ErrInvalidArgument},
		{"group_norm running stats", nn.GroupNormOp(2, nn.RunningStats(f(4), f(4))), []*tensor.Dense{f(2, 4, 5)}, cr.ErrInvalidArgument},
		{"group_norm groups do not divide channels", nn.GroupNormOp(3), []*tensor.Dense{f(2, 4, 5)}, cr.ErrInvalidArgument},
		{"group_norm zero groups", nn.GroupNormOp(0), []*tensor.Dense{f(2, 4, 5)}, cr.ErrInvalidArgument},
		{"group_norm weight channels", nn.GroupNormOp(2, aff), []*tensor.Dense{f(2, 4, 5), f(5), f(4)}, cr.ErrShapeMismatch},
		{"group_norm rank 1", nn.GroupNormOp(1), []*tensor.Dense{f(4)}, cr.ErrInvalidArgument},
		{"instance_norm one spatial element", nn.InstanceNormOp(), []*tensor.Dense{f(2, 3, 1)}, cr.ErrInvalidArgument},
		{"instance_norm bias channels", nn.InstanceNormOp(nn.Affine(false, true)), []*tensor.Dense{f(2, 3, 4), f(2)}, cr.ErrShapeMismatch},
		{"instance_norm running mean alone", nn.InstanceNormOp(nn.RunningStats(f(3), nil)), []*tensor.Dense{f(2, 3, 4)}, cr.ErrInvalidArgument},
		{"instance_norm running var channels", nn.InstanceNormOp(nn.RunningStats(f(3), f(2))), []*tensor.Dense{f(2, 3, 4)}, cr.ErrShapeMismatch},
		{"instance_norm not input stats without running stats", nn.InstanceNormOp(nn.UseInputStats(false)), []*tensor.Dense{f(2, 3, 4)}, cr.ErrInvalidArgument},
		{"instance_norm complex", nn.InstanceNormOp(), []*tensor.Dense{tensor.New(tensor.Complex128, 2, 3, 4)}, cr.ErrInvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := cr.EvalMulti(c.op, c.x...)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, c.op.Name())
		})
	}
}

// Each normalisation agrees with the formula written out element by element.
func TestNormValues(t *testing.T) {
	x := tensor.RandN(nil, tensor.Float64, 2, 4, 3)
	w := tensor.RandN(nil, tensor.Float64, 4)
	b := tensor.RandN(nil, tensor.Float64, 4)
	// want normalises the elements of x whose index (n, c, s) maps to the same
	// group key, with weight and bias per channel.
	want := func(key func(n, c, s int) int, eps float64) []float64 {
		sum, sq, cnt := map[int]float64{}, map[int]float64{}, map[int]float64{}
		for n := 0; n < 2; n++ {
			for c := 0; c < 4; c++ {
				for s := 0; s < 3; s++ {
					sum[key(n, c, s)] += x.AtFloat64(n, c, s)
					cnt[key(n, c, s)]++
				}
			}
		}
		for n := 0; n < 2; n++ {
			for c := 0; c < 4; c++ {
				for s := 0; s < 3; s++ {
					k := key(n, c, s)
					d := x.AtFloat64(n, c, s) - sum[k]/cnt[k]
					sq[k] += d * d
				}
			}
		}
		var out []float64
		for n := 0; n < 2; n++ {
			for c := 0; c < 4; c++ {
				for s := 0; s < 3; s++ {
					k := key(n, c, s)
					h := (x.AtFloat64(n, c, s) - sum[k]/cnt[k]) / math.Sqrt(sq[k]/cnt[k]+eps)
					out = append(out, h*w.AtFloat64(c)+b.AtFloat64(c))
				}
			}
		}
		return out
	}
	aff := nn.Affine(true, true)
	y, err := cr.Eval(nn.GroupNormOp(2, aff), x, w, b)
	require.NoError(t, err)
	require.InDeltaSlice(t, want(func(n, c, _ int) int { return n*2 + c/2 }, 1e-5), y.Float64s(), 1e-12)
	y, err = cr.Eval(nn.InstanceNormOp(aff, nn.NormEps(0.01)), x, w, b)
	require.NoError(t, err)
	require.InDeltaSlice(t, want(func(n, c, _ int) int { return n*4 + c }, 0.01), y.Float64s(), 1e-12)
	y, err = cr.Eval(nn.BatchNormOp(aff, nn.Training(true)), x, w, b)
	require.NoError(t, err)
	require.InDeltaSlice(t, want(func(_, c, _ int) int { return c }, 1e-5), y.Float64s(), 1e-12)
	// layer_norm over [4 3] with no affine parameters: weight 1 and bias 0.
	y, err = nn.LayerNorm(x, []int{4, 3}, nil, nil, 1e-5)
	require.NoError(t, err)
	w, b = tensor.Ones(tensor.Float64, 4), tensor.New(tensor.Float64, 4)
	require.InDeltaSlice(t, want(func(n, _, _ int) int { return n }, 1e-5), y.Float64s(), 1e-12)
}

func ExampleLayerNormOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4)
	x := tp.Leaf(xv)
	y := tp.Apply(nn.LayerNormOp([]int{4}, nn.NormEps(0)), x)
	// d y_0 / d x: the seed picks the first output.
	seed, _ := tensor.FromFloat64([]float64{1, 0, 0, 0}, 4)
	g, _ := tp.BackwardSeed(y, seed)
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	fmt.Printf("y = %.4f\ndy0/dx = %.4f\n", yv.Float64s(), gx.Float64s())
	// Output:
	// y = [-1.3416 -0.4472 0.4472 1.3416]
	// dy0/dx = [0.2683 -0.3578 -0.0894 0.1789]
}

// Outside batch_norm's training, where the statistics reach the running ones, a
// NaN propagates to the output as in PyTorch.
func TestNormNaNPropagates(t *testing.T) {
	x := tensor.RandN(nil, tensor.Float64, 2, 3, 4)
	x.SetFloat64(math.NaN(), 0, 1, 2)
	for _, op := range []cr.Op[*tensor.Dense]{nn.LayerNormOp([]int{4}), nn.GroupNormOp(3), nn.InstanceNormOp()} {
		y, err := cr.Eval(op, x)
		require.NoError(t, err, op.Name())
		require.True(t, math.IsNaN(y.AtFloat64(0, 1, 2)), op.Name())
		require.False(t, math.IsNaN(y.AtFloat64(1, 1, 2)), op.Name())
	}
}

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

// The running statistics are updated once, when the op is applied, with the
// unbiased batch variance; sweeps leave them alone, and the given tensors are
// never modified.
func TestBatchNormRunningStats(t *testing.T) {
	x := tensor.RandN(nil, tensor.Float64, 5, 2, 3)
	rm, _ := tensor.FromFloat64([]float64{0.5, -1}, 2)
	rv, _ := tensor.FromFloat64([]float64{2, 0.25}, 2)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xn := tp.Leaf(x)
	outs := tp.ApplyMulti(nn.BatchNormOp(nn.Training(true), nn.Momentum(0.2), nn.RunningStats(rm, rv)), xn)
	require.Len(t, outs, 3)
	nm, err := tp.Value(outs[1])
	require.NoError(t, err)
	nv, err := tp.Value(outs[2])
	require.NoError(t, err)
	for c := 0; c < 2; c++ {
		var vals []float64
		for n := 0; n < 5; n++ {
			for s := 0; s < 3; s++ {
				vals = append(vals, x.AtFloat64(n, c, s))
			}
		}
		mean, ss := 0.0, 0.0
		for _, v := range vals {
			mean += v / 15
		}
		for _, v := range vals {
			ss += (v - mean) * (v - mean)
		}
		require.InDelta(t, 0.8*rm.AtFloat64(c)+0.2*mean, nm.AtFloat64(c), 1e-14)
		require.InDelta(t, 0.8*rv.AtFloat64(c)+0.2*ss/14, nv.AtFloat64(c), 1e-14)
	}
	loss := tp.Apply(nn.MSELossOp(), outs[0], tp.Constant(tensor.New(tensor.Float64, 5, 2, 3)))
	_, err = tp.Backward(loss)
	require.NoError(t, err)
	// The statistics are outputs without derivatives: x gets no gradient through them.
	g, err := tp.Backward(tp.Apply(nn.MSELossOp(), outs[1], tp.Constant(tensor.New(tensor.Float64, 2))))
	require.NoError(t, err)
	if gx, ok := g.Of(xn); ok {
		require.Zero(t, tensor.SumFloat64(elementwiseAbs(t, gx)))
	}
	nm2, _ := tp.Value(outs[1])
	require.Equal(t, nm.Float64s(), nm2.Float64s())
	require.Equal(t, []float64{0.5, -1}, rm.Float64s())
	require.Equal(t, []float64{2, 0.25}, rv.Float64s())

	// Evaluation with those statistics is the affine map they define.
	y, _, _, err := nn.BatchNorm(x, nm, nv, nil, nil, false, 0.1, 1e-5)
	require.NoError(t, err)
	for i, v := range x.Float64s() {
		c := (i / 3) % 2
		require.InDelta(t, (v-nm.Float64s()[c])/math.Sqrt(nv.Float64s()[c]+1e-5), y.Float64s()[i], 1e-13)
	}
}

func elementwiseAbs(t *testing.T, x *tensor.Dense) *tensor.Dense {
	y := x.Clone()
	for i, v := range y.Float64s() {
		y.Float64s()[i] = math.Abs(v)
	}
	require.NotNil(t, y)
	return y
}

func TestBatchNormBadInputs(t *testing.T) {
	f := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	nan := tensor.RandN(nil, tensor.Float64, 4, 3)
	nan.SetFloat64(math.NaN(), 2, 1)
	inf := tensor.RandN(nil, tensor.Float64, 4, 3)
	inf.SetFloat64(math.Inf(-1), 0, 0)
	for _, c := range []struct {
		name         string
		x, rm, rv    *tensor.Dense
		weight, bias *tensor.Dense
		training     bool
		want         error
	}{
		{"weight channels", f(4, 3), nil, nil, f(4), nil, true, cr.ErrShapeMismatch},
		{"bias channels", f(4, 3, 2), nil, nil, nil, f(2), true, cr.ErrShapeMismatch},
		{"running mean channels", f(4, 3), f(2), f(3), nil, nil, true, cr.ErrShapeMismatch},
		{"running var channels eval", f(4, 3), f(3), f(3, 1), nil, nil, false, cr.ErrShapeMismatch},
		{"eval without running stats", f(4, 3), nil, nil, nil, nil, false, cr.ErrInvalidArgument},
		{"only running mean", f(4, 3), f(3), nil, nil, nil, true, cr.ErrInvalidArgument},
		{"one value per channel", f(1, 3), nil, nil, nil, nil, true, cr.ErrInvalidArgument},
		{"rank 1", f(3), nil, nil, nil, nil, true, cr.ErrInvalidArgument},
		{"NaN in training", nan, f(3), f(3), nil, nil, true, cr.ErrNonFinite},
		{"infinity in training", inf, nil, nil, nil, nil, true, cr.ErrNonFinite},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := nn.BatchNorm(c.x, c.rm, c.rv, c.weight, c.bias, c.training, 0.1, 1e-5)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, "batch_norm")
		})
	}
}

func ExampleBatchNormOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	// A batch of 4 samples with one channel.
	xv, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4, 1)
	runMean, runVar := tensor.New(tensor.Float64, 1), tensor.Ones(tensor.Float64, 1)
	x := tp.Leaf(xv)
	outs := tp.ApplyMulti(nn.BatchNormOp(nn.Training(true), nn.RunningStats(runMean, runVar)), x)
	y, _ := tp.Value(outs[0])
	m, _ := tp.Value(outs[1])
	v, _ := tp.Value(outs[2])
	// Batch mean 2.5, biased variance 1.25 (normalises), unbiased 5/3 (updates).
	fmt.Printf("y = %.4f\nrunning mean = %.4f, running var = %.4f\n", y.Float64s(), m.Float64s(), v.Float64s())
	// Output:
	// y = [-1.3416 -0.4472 0.4472 1.3416]
	// running mean = [0.2500], running var = [1.0667]
}

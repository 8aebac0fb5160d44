package nn_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// layerNormRun applies layer_norm (affine) to x, w, b and pulls g back: y, xbar,
// wbar and bbar, as tensors.
func layerNormRun(t *testing.T, op cr.Op[*tensor.Dense], x, w, b, g *tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, 1)
	rule, err := op.Apply([]cr.NodeID{0, 1, 2}, []*tensor.Dense{x, w, b}, out)
	require.NoError(t, err)
	c, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
	require.NoError(t, err)
	require.Len(t, c, 3)
	return []*tensor.Dense{out[0], c[0].Value, c[1].Value, c[2].Value}
}

// layer_norm on an input large enough for its kernels to split the rows over
// goroutines (300 rows of 700, offset from 0 so that the variance's two passes
// matter): with GOMAXPROCS 4 the output and the three cotangents are exactly
// those of GOMAXPROCS 1, and they agree with the formulas evaluated row by row
// in the test,
//
//	y = (x - mean) rstd w + b,  xbar = rstd (g - mean(g) - xhat mean(g xhat)),
//	wbar = sum_rows ybar xhat,  bbar = sum_rows ybar   (g = ybar w).
//
// In float32 (the inputs rounded), the native kernels agree with the float64
// ones to float32's precision.
func TestLayerNormRowsParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const rows, cols = 300, 700
	x := tensor.Scale(tensor.RandN(rng, tensor.Float64, rows, cols), 3)
	for i := range x.Float64s() {
		x.Float64s()[i] += 50
	}
	w, b := tensor.RandN(rng, tensor.Float64, cols), tensor.RandN(rng, tensor.Float64, cols)
	g := tensor.RandN(rng, tensor.Float64, rows, cols)
	op := nn.LayerNormOp([]int{cols}, nn.Affine(true, true))

	old := runtime.GOMAXPROCS(1)
	r1 := layerNormRun(t, op, x, w, b, g)
	runtime.GOMAXPROCS(4)
	r4 := layerNormRun(t, op, x, w, b, g)
	runtime.GOMAXPROCS(old)
	for k, what := range []string{"y", "xbar", "wbar", "bbar"} {
		require.Equal(t, r1[k].Float64s(), r4[k].Float64s(), "%s at 1 and 4 threads", what)
	}

	xs, ws, bs, gs := x.Float64s(), w.Float64s(), b.Float64s(), g.Float64s()
	wbar, bbar := make([]float64, cols), make([]float64, cols)
	y, xbar := r4[0].Float64s(), r4[1].Float64s()
	for k := range rows {
		row, gr := xs[k*cols:(k+1)*cols], gs[k*cols:(k+1)*cols]
		var mean, vr float64
		for _, v := range row {
			mean += v
		}
		mean /= cols
		for _, v := range row {
			vr += (v - mean) * (v - mean)
		}
		rstd := 1 / math.Sqrt(vr/cols+1e-5)
		var mg, mgx float64
		for i, v := range row {
			h := (v - mean) * rstd
			mg += gr[i] * ws[i] / cols
			mgx += gr[i] * ws[i] * h / cols
			wbar[i] += gr[i] * h
			bbar[i] += gr[i]
		}
		for i, v := range row {
			h := (v - mean) * rstd
			require.InDelta(t, h*ws[i]+bs[i], y[k*cols+i], 1e-11, "y row %d element %d", k, i)
			require.InDelta(t, rstd*(gr[i]*ws[i]-mg-h*mgx), xbar[k*cols+i], 1e-11, "xbar row %d element %d", k, i)
		}
	}
	require.InDeltaSlice(t, wbar, r4[2].Float64s(), 1e-9)
	require.InDeltaSlice(t, bbar, r4[3].Float64s(), 1e-9)

	// Single precision: the same values rounded, against the float64 kernels at
	// the rounded values.
	single := func(v *tensor.Dense) *tensor.Dense {
		s, err := tensor.AsType(v, tensor.Float32)
		require.NoError(t, err)
		return s
	}
	wide := func(v *tensor.Dense) *tensor.Dense {
		d, err := tensor.AsType(v, tensor.Float64)
		require.NoError(t, err)
		return d
	}
	x32, w32, b32, g32 := single(x), single(w), single(b), single(g)
	r32 := layerNormRun(t, op, x32, w32, b32, g32)
	r64 := layerNormRun(t, op, wide(x32), wide(w32), wide(b32), wide(g32))
	for k, what := range []string{"y", "xbar", "wbar", "bbar"} {
		require.Equal(t, tensor.Float32, r32[k].DType(), what)
		got, want := wide(r32[k]).Float64s(), r64[k].Float64s()
		var diff, norm float64
		for i := range got {
			diff += (got[i] - want[i]) * (got[i] - want[i])
			norm += want[i] * want[i]
		}
		require.Less(t, math.Sqrt(diff), 1e-5*math.Sqrt(norm), "float32 %s against float64", what)
	}
}

// softmax and log_softmax of float32 input along the last axis run natively in
// single precision: on an input split over goroutines, the output and the
// pullback are float32, the same at GOMAXPROCS 1 and 4, and within float32's
// precision of the float64 op at the same (rounded) values.
func TestSoftmaxSingleNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const rows, cols = 300, 700
	x := tensor.Scale(tensor.RandN(rng, tensor.Float32, rows, cols), 3)
	g := tensor.RandN(rng, tensor.Float32, rows, cols)
	wide := func(v *tensor.Dense) *tensor.Dense {
		d, err := tensor.AsType(v, tensor.Float64)
		require.NoError(t, err)
		return d
	}
	run := func(op cr.Op[*tensor.Dense], x, g *tensor.Dense) (y, xbar *tensor.Dense) {
		out := make([]*tensor.Dense, 1)
		rule, err := op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, out)
		require.NoError(t, err)
		c, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
		require.NoError(t, err)
		return out[0], c[0].Value
	}
	for _, op := range []cr.Op[*tensor.Dense]{nn.SoftmaxOp(-1), nn.LogSoftmaxOp(1)} {
		old := runtime.GOMAXPROCS(1)
		y1, xb1 := run(op, x, g)
		runtime.GOMAXPROCS(4)
		y4, xb4 := run(op, x, g)
		runtime.GOMAXPROCS(old)
		require.Equal(t, tensor.Float32, y4.DType(), op.Name())
		require.Equal(t, tensor.Float32, xb4.DType(), op.Name())
		require.Equal(t, y1.Float32s(), y4.Float32s(), "%s: output at 1 and 4 threads", op.Name())
		require.Equal(t, xb1.Float32s(), xb4.Float32s(), "%s: xbar at 1 and 4 threads", op.Name())
		y64, xb64 := run(op, wide(x), wide(g))
		for _, c := range []struct {
			what      string
			got, want *tensor.Dense
		}{{"output", y4, y64}, {"xbar", xb4, xb64}} {
			got, want := wide(c.got).Float64s(), c.want.Float64s()
			for i := range got {
				require.InDelta(t, want[i], got[i], 1e-6*(1+math.Abs(want[i])), "%s %s element %d", op.Name(), c.what, i)
			}
		}
	}
}

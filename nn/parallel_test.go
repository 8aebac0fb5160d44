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

// applyPullback applies op to x and pulls g back, returning y and xbar.
func applyPullback(t *testing.T, op cr.Op[*tensor.Dense], x, g *tensor.Dense) (y, xbar []float64) {
	out := make([]*tensor.Dense, 1)
	rule, err := op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, out)
	require.NoError(t, err)
	c, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
	require.NoError(t, err)
	require.Len(t, c, 1)
	return out[0].Contiguous().Float64s(), c[0].Value.Contiguous().Float64s()
}

// TestSoftmaxParallelBitIdentical checks softmax, log_softmax and cross_entropy on
// inputs large enough to be split over goroutines: with GOMAXPROCS 4 the outputs
// and pullbacks are exactly those of GOMAXPROCS 1, and they agree with the
// formulas (p = exp(x - m) / sum exp(x - m), xbar = p (g - sum(p g)) and
// xbar = g - p sum(g)) evaluated lane by lane in the test.
func TestSoftmaxParallelBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, cols = 300, 700
	x := tensor.Scale(tensor.RandN(rng, tensor.Float64, rows, cols), 3)
	g := tensor.RandN(rng, tensor.Float64, rows, cols)
	labels := make([]int, rows)
	for i := range labels {
		labels[i] = rng.IntN(cols)
	}
	xs, gs := x.Float64s(), g.Float64s()
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		g    *tensor.Dense
	}{
		{"softmax", nn.SoftmaxOp(-1), g},
		{"log_softmax", nn.LogSoftmaxOp(-1), g},
		{"cross_entropy", nn.CrossEntropyOp(labels), tensor.Scale(tensor.Ones(tensor.Float64), 0.5)},
	} {
		old := runtime.GOMAXPROCS(1)
		y1, xb1 := applyPullback(t, tc.op, x, tc.g)
		runtime.GOMAXPROCS(4)
		y4, xb4 := applyPullback(t, tc.op, x, tc.g)
		runtime.GOMAXPROCS(old)
		require.Equal(t, y1, y4, "%s: output at 1 and 4 threads", tc.name)
		require.Equal(t, xb1, xb4, "%s: xbar at 1 and 4 threads", tc.name)
		if tc.name == "cross_entropy" {
			continue
		}
		for k := range rows {
			row, gr := xs[k*cols:(k+1)*cols], gs[k*cols:(k+1)*cols]
			m := math.Inf(-1)
			for _, v := range row {
				m = max(m, v)
			}
			var s, pg, sg float64
			for i, v := range row {
				s += math.Exp(v - m)
				sg += gr[i]
			}
			p := make([]float64, cols)
			for i, v := range row {
				p[i] = math.Exp(v-m) / s
				pg += p[i] * gr[i]
			}
			for i := range row {
				want, wantBar := p[i], p[i]*(gr[i]-pg)
				if tc.name == "log_softmax" {
					want, wantBar = row[i]-m-math.Log(s), gr[i]-p[i]*sg
				}
				require.InDelta(t, want, y4[k*cols+i], 1e-12, "%s row %d element %d", tc.name, k, i)
				require.InDelta(t, wantBar, xb4[k*cols+i], 1e-10, "%s xbar row %d element %d", tc.name, k, i)
			}
		}
	}
}

// TestConvParallelBitIdentical checks a convolution on the tiled path (32x32
// images with 16 channels: two im2col tiles a sample) whose forward splits its
// tiles and whose input gradient splits its samples over goroutines: with
// GOMAXPROCS 4 the output and both gradients are exactly those of GOMAXPROCS 1.
func TestConvParallelBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := tensor.RandN(rng, tensor.Float64, 5, 16, 32, 32)
	w := tensor.RandN(rng, tensor.Float64, 8, 16, 3, 3)
	g := tensor.RandN(rng, tensor.Float64, 5, 8, 32, 32)
	op := nn.Conv2dOp(nn.Padding(1))
	run := func(procs int) (y, xbar, wbar []float64) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		out := make([]*tensor.Dense, 1)
		rule, err := op.Apply([]cr.NodeID{0, 1}, []*tensor.Dense{x, w}, out)
		require.NoError(t, err)
		c, err := rule.Pullback([]*tensor.Dense{g}, []bool{true, true}, nil)
		require.NoError(t, err)
		bars := map[cr.NodeID][]float64{}
		for _, ct := range c {
			bars[ct.Node] = ct.Value.Contiguous().Float64s()
		}
		require.Len(t, bars, 2)
		return out[0].Contiguous().Float64s(), bars[0], bars[1]
	}
	y1, xb1, wb1 := run(1)
	y4, xb4, wb4 := run(4)
	require.Equal(t, y1, y4, "output at 1 and 4 threads")
	require.Equal(t, xb1, xb4, "xbar at 1 and 4 threads")
	require.Equal(t, wb1, wb4, "weightbar at 1 and 4 threads")
	// The output is the convolution: spot-check one element by its sum.
	xs, ws := x.Float64s(), w.Float64s()
	n, o, i, j := 3, 5, 0, 17
	var want float64
	for c := range 16 {
		for a := range 3 {
			for b := range 3 {
				if ii, jj := i+a-1, j+b-1; ii >= 0 && ii < 32 && jj >= 0 && jj < 32 {
					want += ws[((o*16+c)*3+a)*3+b] * xs[((n*16+c)*32+ii)*32+jj]
				}
			}
		}
	}
	require.InDelta(t, want, y1[((n*8+o)*32+i)*32+j], 1e-12)
}

// TestPoolParallelBitIdentical checks max pooling on its general loop (3x3
// windows, stride 2, padding 1) and average pooling, whose planes are split over
// goroutines: with GOMAXPROCS 4 the outputs and pullbacks are exactly those of
// GOMAXPROCS 1.
func TestPoolParallelBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x := tensor.RandN(rng, tensor.Float64, 4, 8, 48, 48) // 32 planes of 2304: several chunks
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
	}{
		{"max_pool2d", nn.MaxPool2dOp([]int{3, 3}, nn.PoolStride(2), nn.PoolPadding(1))},
		{"avg_pool2d", nn.AvgPool2dOp([]int{3, 3}, nn.PoolStride(2), nn.PoolPadding(1))},
	} {
		run := func(procs int) (y, xbar []float64) {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			out := make([]*tensor.Dense, tc.op.NumOutputs())
			rule, err := tc.op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, out)
			require.NoError(t, err)
			g := tensor.RandN(rand.New(rand.NewPCG(17, 18)), tensor.Float64, out[0].Shape()...)
			ybar := make([]*tensor.Dense, len(out))
			has := make([]bool, len(out))
			ybar[0], has[0] = g, true
			c, err := rule.Pullback(ybar, has, nil)
			require.NoError(t, err)
			require.Len(t, c, 1)
			return out[0].Contiguous().Float64s(), c[0].Value.Contiguous().Float64s()
		}
		y1, xb1 := run(1)
		y4, xb4 := run(4)
		require.Equal(t, y1, y4, "%s: output at 1 and 4 threads", tc.name)
		require.Equal(t, xb1, xb4, "%s: xbar at 1 and 4 threads", tc.name)
	}
}

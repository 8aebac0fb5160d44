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

// cross_entropy of float32 logits with labels runs natively in single
// precision: on logits split over goroutines (300 rows of 700, some rows
// ignored), for each reduction, the loss and the pullback are float32, the same
// at GOMAXPROCS 1 and 4, and within float32's precision of the float64 op at
// the same (rounded) logits.
func TestCrossEntropySingleNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const rows, cols = 300, 700
	x := tensor.Scale(tensor.RandN(rng, tensor.Float32, rows, cols), 4)
	labels := make([]int, rows)
	for i := range labels {
		labels[i] = rng.IntN(cols)
		if i%7 == 3 {
			labels[i] = -100
		}
	}
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
	for _, red := range []nn.Reduction{nn.ReductionMean, nn.ReductionSum, nn.ReductionNone} {
		op := nn.CrossEntropyOp(labels, nn.IgnoreIndex(-100), nn.WithReduction(red))
		g := tensor.ScalarFloat32(0.75)
		if red == nn.ReductionNone {
			g = tensor.RandN(rng, tensor.Float32, rows)
		}
		old := runtime.GOMAXPROCS(1)
		y1, xb1 := run(op, x, g)
		runtime.GOMAXPROCS(4)
		y4, xb4 := run(op, x, g)
		runtime.GOMAXPROCS(old)
		require.Equal(t, tensor.Float32, y4.DType())
		require.Equal(t, tensor.Float32, xb4.DType())
		require.Equal(t, y1.Float32s(), y4.Float32s(), "%v: loss at 1 and 4 threads", red)
		require.Equal(t, xb1.Float32s(), xb4.Float32s(), "%v: xbar at 1 and 4 threads", red)
		y64, xb64 := run(op, wide(x), wide(g))
		for _, c := range []struct {
			what      string
			got, want *tensor.Dense
		}{{"loss", y4, y64}, {"xbar", xb4, xb64}} {
			got, want := wide(c.got).Float64s(), c.want.Float64s()
			require.Len(t, got, len(want))
			for i := range got {
				require.InDelta(t, want[i], got[i], 1e-5*(1e-2+math.Abs(want[i])), "%v %s element %d", red, c.what, i)
			}
		}
		for i, y := range labels {
			if y < 0 {
				require.Equal(t, make([]float32, cols), xb4.Float32s()[i*cols:(i+1)*cols], "ignored row %d", i)
			}
		}
	}
}

package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkDTypeCNN compares float32 with float64 on the layers of a CNN: the
// convolutions of BenchmarkConv2d (the 56x56 ones at batch 8) and the pools of
// BenchmarkPool2d (batch 8), each the forward value and the backward sweep to
// every input from a fixed cotangent. A float32 model should take about half
// float64's time and memory (benchstat the float32 rows against the float64
// ones).
func BenchmarkDTypeCNN(b *testing.B) {
	type layer struct {
		name  string
		shape [][]int // the inputs' shapes
		op    cr.Op[*tensor.Dense]
		multi bool // values and indices (the max pools)
	}
	layers := []layer{
		{"conv2d/N8_64x64_56x56_k3_p1", [][]int{{8, 64, 56, 56}, {64, 64, 3, 3}}, nn.Conv2dOp(nn.Padding(1)), false},
		{"conv2d_s2/N8_64x64_56x56_k3_p1_s2", [][]int{{8, 64, 56, 56}, {64, 64, 3, 3}}, nn.Conv2dOp(nn.Padding(1), nn.Stride(2)), false},
		{"conv2d_small/N64_16x32_4x4_k3_p1", [][]int{{64, 16, 4, 4}, {32, 16, 3, 3}}, nn.Conv2dOp(nn.Padding(1)), false},
		{"max_pool2d/N8_64_56x56_k2s2", [][]int{{8, 64, 56, 56}}, nn.MaxPool2dOp([]int{2}), true},
		{"max_pool2d/N8_64_56x56_k3s2p1", [][]int{{8, 64, 56, 56}}, nn.MaxPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), true},
		{"avg_pool2d/N8_64_56x56_k3s2p1", [][]int{{8, 64, 56, 56}}, nn.AvgPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), false},
	}
	for _, l := range layers {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]*tensor.Dense, len(l.shape))
			for i, s := range l.shape {
				x[i] = tensor.RandN(rng, dt, s...)
			}
			y, err := cr.EvalMulti(l.op, x...)
			if err != nil {
				b.Fatal(err)
			}
			if y[0].DType() != dt {
				b.Fatalf("%s of %s is %s", l.name, dt, y[0].DType())
			}
			ybar := tensor.RandN(rng, dt, y[0].Shape()...)
			b.Run(l.name+"/dtype="+dt.String()+"/forward+backward", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tp := core.NewTape[*tensor.Dense](tensor.Space{})
					ids := make([]cr.NodeID, len(x))
					for i, v := range x {
						ids[i] = tp.Leaf(v)
					}
					var out cr.NodeID
					if l.multi {
						out = tp.ApplyMulti(l.op, ids...)[0]
					} else {
						out = tp.Apply(l.op, ids...)
					}
					g, err := tp.BackwardSeed(out, ybar)
					if err != nil {
						b.Fatal(err)
					}
					if _, ok := g.Of(ids[len(ids)-1]); !ok {
						b.Fatal("no gradient")
					}
				}
			})
		}
	}
}

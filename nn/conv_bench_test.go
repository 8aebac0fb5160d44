package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// convBench is one benchmark shape: x [N, C, spatial...], a kernel [Cout, C, k...].
type convBench struct {
	name   string
	x, w   []int
	op     cr.Op[*tensor.Dense]
	gflops float64 // of the forward pass
}

func convBenches() []convBench {
	return []convBench{
		{"conv2d/N32_64x64_56x56_k3_p1", []int{32, 64, 56, 56}, []int{64, 64, 3, 3}, nn.Conv2dOp(nn.Padding(1)), 2 * 32 * 64 * 64 * 9 * 56 * 56 / 1e9},
		{"conv2d_s2/N32_64x64_56x56_k3_p1_s2", []int{32, 64, 56, 56}, []int{64, 64, 3, 3}, nn.Conv2dOp(nn.Padding(1), nn.Stride(2)), 2 * 32 * 64 * 64 * 9 * 28 * 28 / 1e9},
		{"conv1d/N8_64x64_L16384_k3_p1", []int{8, 64, 16384}, []int{64, 64, 3}, nn.Conv1dOp(nn.Padding(1)), 2 * 8 * 64 * 64 * 3 * 16384 / 1e9},
		// The second layer of examples/cnn: small images, the block kernels.
		{"conv2d_small/N64_16x32_4x4_k3_p1", []int{64, 16, 4, 4}, []int{32, 16, 3, 3}, nn.Conv2dOp(nn.Padding(1)), 2 * 64 * 32 * 16 * 9 * 4 * 4 / 1e9},
	}
}

// BenchmarkConv2d runs the convolutions of ResNet-like layers and a long 1-d
// sequence (PyTorch's shapes in bench/peers.py): the forward value alone, and
// the forward value with the backward sweep to x and the weight (the gradient
// of <ybar, conv(x, w)> for a fixed ybar). GFLOP/s counts the forward pass's
// multiply-adds (the backward costs twice as many).
func BenchmarkConv2d(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range convBenches() {
		x, w := tensor.RandN(rng, tensor.Float64, c.x...), tensor.RandN(rng, tensor.Float64, c.w...)
		y, err := cr.Eval(c.op, x, w)
		if err != nil {
			b.Fatal(err)
		}
		ybar := tensor.RandN(rng, tensor.Float64, y.Shape()...)
		b.Run(c.name+"/forward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cr.Eval(c.op, x, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(c.gflops*float64(b.N)/b.Elapsed().Seconds(), "GFLOP/s")
		})
		b.Run(c.name+"/forward+backward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tp := core.NewTape[*tensor.Dense](tensor.Space{})
				xi, wi := tp.Leaf(x), tp.Leaf(w)
				g, err := tp.BackwardSeed(tp.Apply(c.op, xi, wi), ybar)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := g.Of(wi); !ok {
					b.Fatal("no weight gradient")
				}
			}
			b.ReportMetric(3*c.gflops*float64(b.N)/b.Elapsed().Seconds(), "GFLOP/s")
		})
	}
}

package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkSinglePrecision times a forward value and backward sweep of a few nn
// ops in float64 and in float32: widened, computed in double precision and rounded
// once (the float32 rows pay the casts on top of the float64 time, and allocate the
// single-precision results beside the double-precision ones), but for linear,
// whose matrix products run on the float32 GEMM.
func BenchmarkSinglePrecision(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name  string
		op    cr.Op[*tensor.Dense]
		shape [][]int
	}{
		{"conv2d/N8_16x16_16x16_k3_p1", nn.Conv2dOp(nn.Padding(1)), [][]int{{8, 16, 16, 16}, {16, 16, 3, 3}}},
		{"softmax/256x512", nn.SoftmaxOp(-1), [][]int{{256, 512}}},
		{"layer_norm/64x32x128", nn.LayerNormOp([]int{128}), [][]int{{64, 32, 128}}},
		// linear runs natively in single precision (einsum on the float32 GEMM).
		{"linear/256x512_512x512", nn.LinearOp(false), [][]int{{256, 512}, {512, 512}}},
	} {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			x := make([]*tensor.Dense, len(c.shape))
			for k, s := range c.shape {
				x[k] = tensor.RandN(rng, dt, s...)
			}
			b.Run(c.name+"/"+dt.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tp := core.NewTape[*tensor.Dense](tensor.Space{})
					ids := make([]cr.NodeID, len(x))
					for k, v := range x {
						ids[k] = tp.Leaf(v)
					}
					y := tp.Apply(c.op, ids...)
					yv, err := tp.Value(y)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := tp.BackwardSeed(y, yv); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkSingleNative times the ops that run natively in float32 (layer_norm,
// softmax, log_softmax, cross_entropy with labels, batch_norm in training)
// against the same ops in
// float64: recording and the backward sweep from a random cotangent, each call
// in the memory of the one before (EnableRecycling and Release, as a training
// loop's gradient).
func BenchmarkSingleNative(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	labels := make([]int, 256)
	for i := range labels {
		labels[i] = rng.IntN(1000)
	}
	for _, c := range []struct {
		name  string
		op    cr.Op[*tensor.Dense]
		shape [][]int
	}{
		{"layer_norm/2048x768", nn.LayerNormOp([]int{768}, nn.Affine(true, true)), [][]int{{2048, 768}, {768}, {768}}},
		{"softmax/256x1000", nn.SoftmaxOp(-1), [][]int{{256, 1000}}},
		{"log_softmax/256x1000", nn.LogSoftmaxOp(-1), [][]int{{256, 1000}}},
		{"cross_entropy/256x1000", nn.CrossEntropyOp(labels), [][]int{{256, 1000}}},
		{"batch_norm/32x64x28x28", nn.BatchNormOp(nn.Training(true), nn.Affine(true, true)), [][]int{{32, 64, 28, 28}, {64}, {64}}},
	} {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			x := make([]*tensor.Dense, len(c.shape))
			for k, s := range c.shape {
				x[k] = tensor.RandN(rng, dt, s...)
			}
			b.Run(c.name+"/"+dt.String(), func(b *testing.B) {
				b.ReportAllocs()
				var ybar *tensor.Dense
				for b.Loop() {
					tp := core.NewTape[*tensor.Dense](tensor.Space{})
					tp.EnableRecycling()
					ids := make([]cr.NodeID, len(x))
					for k, v := range x {
						ids[k] = tp.Leaf(v)
					}
					y := tp.Apply(c.op, ids...)
					if ybar == nil {
						yv, err := tp.Value(y)
						if err != nil {
							b.Fatal(err)
						}
						ybar = tensor.RandN(rng, dt, yv.Shape()...)
					}
					if _, err := tp.BackwardSeed(y, ybar); err != nil {
						b.Fatal(err)
					}
					tp.Release()
				}
			})
		}
	}
}

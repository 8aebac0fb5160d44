package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkBatchNorm records batch_norm in training (affine, running statistics)
// of x [32, 64, 56, 56] and runs the backward sweep from a random cotangent: the
// forward and backward of one ResNet layer's normalisation. PyTorch 1.13 on one
// thread, for this benchmark and the others of this file: bench/layers_torch.py.
func BenchmarkBatchNorm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, c, h, w = 32, 64, 56, 56
	x := tensor.RandN(rng, tensor.Float64, n, c, h, w)
	gamma, beta := tensor.RandN(rng, tensor.Float64, c), tensor.RandN(rng, tensor.Float64, c)
	rm, rv := tensor.New(tensor.Float64, c), tensor.Ones(tensor.Float64, c)
	ybar := tensor.RandN(rng, tensor.Float64, n, c, h, w)
	op := nn.BatchNormOp(nn.Training(true), nn.Affine(true, true), nn.RunningStats(rm, rv))
	b.Run("32x64x56x56/train/forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			in := []cr.NodeID{t.Leaf(x), t.Leaf(gamma), t.Leaf(beta)}
			y := t.ApplyMulti(op, in...)
			if _, err := t.BackwardSeed(y[0], ybar); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLinear records F.linear of x [256, 512] by W [512, 512] with a bias
// and runs the backward sweep (two more matrix products).
func BenchmarkLinear(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, w, bias := tensor.RandN(rng, tensor.Float64, 256, 512), tensor.RandN(rng, tensor.Float64, 512, 512), tensor.RandN(rng, tensor.Float64, 512)
	ybar := tensor.RandN(rng, tensor.Float64, 256, 512)
	op := nn.LinearOp(true)
	b.Run("256x512x512/forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		var total float64
		for b.Loop() {
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			y := t.Apply(op, t.Leaf(x), t.Leaf(w), t.Leaf(bias))
			if _, err := t.BackwardSeed(y, ybar); err != nil {
				b.Fatal(err)
			}
			total += 3 * 2 * 256 * 512 * 512
		}
		b.ReportMetric(total/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// BenchmarkLayerNorm records layer_norm over the last axis of x [2048, 768]
// (affine) and runs the backward sweep: a transformer block's normalisation.
func BenchmarkLayerNorm(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := tensor.RandN(rng, tensor.Float64, 2048, 768)
	gamma, beta := tensor.RandN(rng, tensor.Float64, 768), tensor.RandN(rng, tensor.Float64, 768)
	ybar := tensor.RandN(rng, tensor.Float64, 2048, 768)
	op := nn.LayerNormOp([]int{768}, nn.Affine(true, true))
	b.Run("2048x768/forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			y := t.Apply(op, t.Leaf(x), t.Leaf(gamma), t.Leaf(beta))
			if _, err := t.BackwardSeed(y, ybar); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAttention records causal scaled_dot_product_attention of q, k, v
// [4, 8, 128, 64] (batch, heads, tokens, head size) and runs the backward sweep.
func BenchmarkAttention(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	q, k, v := tensor.RandN(rng, tensor.Float64, 4, 8, 128, 64), tensor.RandN(rng, tensor.Float64, 4, 8, 128, 64), tensor.RandN(rng, tensor.Float64, 4, 8, 128, 64)
	ybar := tensor.RandN(rng, tensor.Float64, 4, 8, 128, 64)
	op := nn.ScaledDotProductAttentionOp(nn.IsCausal())
	b.Run("4x8x128x64/causal/forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			y := t.Apply(op, t.Leaf(q), t.Leaf(k), t.Leaf(v))
			if _, err := t.BackwardSeed(y, ybar); err != nil {
				b.Fatal(err)
			}
		}
	})
}

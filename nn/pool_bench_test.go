package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkPool2d records max_pool2d and avg_pool2d of a [32 64 56 56] input (a
// ResNet stem's size) and runs the backward sweep from a ones cotangent: kernel 2
// stride 2, and kernel 3 stride 2 padding 1. bench/peers.py (pool) times PyTorch
// on the same work.
func BenchmarkPool2d(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.RandN(rng, tensor.Float64, 32, 64, 56, 56)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		max  bool
	}{
		{"max_pool2d/k2s2", nn.MaxPool2dOp([]int{2}), true},
		{"max_pool2d/k3s2p1", nn.MaxPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), true},
		{"avg_pool2d/k2s2", nn.AvgPool2dOp([]int{2}), false},
		{"avg_pool2d/k3s2p1", nn.AvgPool2dOp([]int{3}, nn.PoolStride(2), nn.PoolPadding(1)), false},
	} {
		seed := tensor.Ones(tensor.Float64, 32, 64, 28, 28)
		b.Run(c.name+"/forward+backward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := core.NewTape[*tensor.Dense](tensor.Space{})
				xi := t.Leaf(x)
				var y cr.NodeID
				if c.max {
					y = t.ApplyMulti(c.op, xi)[0]
				} else {
					y = t.Apply(c.op, xi)
				}
				if _, err := t.BackwardSeed(y, seed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

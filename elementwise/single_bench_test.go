package elementwise_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkSingle times exp and tanh of 2^20 elements and their pullbacks in
// float64 and float32: the float32 path runs the native float32 kernels
// (vmath.Exp32, vmath.Tanh32) and computes the pullback in float32.
func BenchmarkSingle(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		x := tensor.RandN(rng, dt, 1<<20)
		ybar := tensor.RandN(rng, dt, 1<<20)
		for name, op := range map[string]cr.Op[*tensor.Dense]{"exp": elementwise.ExpOp, "tanh": elementwise.TanhOp} {
			b.Run(fmt.Sprintf("%s/%v", name, dt), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := cr.EvalMulti(op, x); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s-pullback/%v", name, dt), func(b *testing.B) {
				in := []cr.NodeID{cr.NewNodeID(1, 1)}
				y := make([]*tensor.Dense, 1)
				r, err := op.Apply(in, []*tensor.Dense{x}, y)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := r.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package nn_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// crossEntropyComposite records the mean over rows of logsumexp(x_r) - x_{r, y_r}:
// the cross-entropy a user writes from the primitive ops, which the fused op must
// match in speed.
func crossEntropyComposite(t *core.Tape[*tensor.Dense], x cr.NodeID, labels []int) cr.NodeID {
	n := len(labels)
	lse := t.Apply(reduce.LogSumExpOp([]int{1}, false), x)
	picked := t.Apply(permute.ReshapeOp(n), t.Apply(index.GatherOp(1, labels, n, 1), x))
	return t.Apply(reduce.MeanOp(nil, false), t.Apply(elementwise.SubOp, lse, picked))
}

// BenchmarkCrossEntropy records the loss of [N, C] logits and runs the backward
// sweep (the gradient), fused op against the composite logsumexp path.
func BenchmarkCrossEntropy(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range [][2]int{{64, 10}, {256, 1000}} {
		n, c := sz[0], sz[1]
		x := tensor.RandN(rng, tensor.Float64, n, c)
		labels := make([]int, n)
		for i := range labels {
			labels[i] = rng.IntN(c)
		}
		for _, p := range []struct {
			name string
			loss func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID
		}{
			{"fused", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return t.Apply(nn.CrossEntropyOp(labels), x) }},
			{"composite-logsumexp", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return crossEntropyComposite(t, x, labels) }},
		} {
			b.Run(fmt.Sprintf("%dx%d/%s/grad", n, c, p.name), func(b *testing.B) {
				b.ReportAllocs()
				// A training loop's gradient: each call in the memory of the one
				// before (hvp.Gradient), the gradient used up within the iteration.
				var g hvp.Gradient
				f := func(t *hvp.Tape, xi []cr.NodeID) cr.NodeID { return p.loss(t, xi[0]) }
				xs := []*tensor.Dense{x}
				for b.Loop() {
					if _, _, err := g.Grad(f, xs); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%dx%d/%s/forward", n, c, p.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					t := core.NewTape[*tensor.Dense](tensor.Space{})
					p.loss(t, t.Leaf(x))
					if t.Err() != nil {
						b.Fatal(t.Err())
					}
				}
			})
		}
	}
}

// inlineSoftmax records the composite softmax (max without gradient, sub, exp,
// sum, div) directly on the tape: what nn.SoftmaxOp was before it was fused.
func inlineSoftmax(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
	var m cr.NodeID
	t.NoGrad(func() { m = t.Apply(reduce.MaxOp([]int{-1}, true), x) })
	e := t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x, m))
	return t.Apply(elementwise.DivOp, e, t.Apply(reduce.SumOp([]int{-1}, true), e))
}

// BenchmarkSoftmax compares the fused softmax and log_softmax along the last axis
// with the composite logsumexp paths exp(x - logsumexp(x)) and x - logsumexp(x),
// and softmax with its max-shifted composite recorded inline: recording and the
// backward sweep from a cotangent w, for 256 rows of 10 and of 1000 logits.
func BenchmarkSoftmax(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	lse := func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
		return t.Apply(elementwise.SubOp, x, t.Apply(reduce.LogSumExpOp([]int{-1}, true), x))
	}
	for _, c := range []int{10, 1000} {
		x := tensor.RandN(rng, tensor.Float64, 256, c)
		w := tensor.RandN(rng, tensor.Float64, 256, c)
		for _, p := range []struct {
			name string
			f    func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID
		}{
			{"softmax", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return t.Apply(nn.SoftmaxOp(-1), x) }},
			{"exp-logsumexp", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return t.Apply(elementwise.ExpOp, lse(t, x)) }},
			{"inline-composite", inlineSoftmax},
			{"log_softmax", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return t.Apply(nn.LogSoftmaxOp(-1), x) }},
			{"sub-logsumexp", lse},
		} {
			b.Run(fmt.Sprintf("256x%d/%s/grad", c, p.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					// A training loop's VJP: each call in the memory of the one
					// before (EnableRecycling and Release, as hvp's transforms
					// do), the result used up within the iteration.
					t := core.NewTape[*tensor.Dense](tensor.Space{})
					t.EnableRecycling()
					if _, err := t.BackwardSeed(p.f(t, t.Leaf(x)), w); err != nil {
						b.Fatal(err)
					}
					t.Release()
				}
			})
		}
	}
}

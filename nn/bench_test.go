package nn_test

import (
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// inlineSoftmax records the body of nn.SoftmaxOp directly on the tape.
func inlineSoftmax(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
	var m cr.NodeID
	t.NoGrad(func() { m = t.Apply(reduce.MaxOp([]int{-1}, true), x) })
	e := t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x, m))
	return t.Apply(elementwise.DivOp, e, t.Apply(reduce.SumOp([]int{-1}, true), e))
}

// BenchmarkSoftmax compares the composite op with the same ops recorded inline:
// forward and backward of sum(softmax(x) * w) on a 256x10 batch of logits.
func BenchmarkSoftmax(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xv, wv := tensor.RandN(rng, tensor.Float64, 256, 10), tensor.RandN(rng, tensor.Float64, 256, 10)
	for _, c := range []struct {
		name string
		f    func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID
	}{
		{"composite", func(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return t.Apply(nn.SoftmaxOp(-1), x) }},
		{"inline", inlineSoftmax},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := core.NewTape[*tensor.Dense](tensor.Space{})
				x := t.Leaf(xv)
				loss := t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.MulOp, c.f(t, x), t.Constant(wv)))
				if _, err := t.Backward(loss); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package core_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// A composite op records other ops; its rules come from that recording, and the
// outer tape shows one node.
func ExampleComposite() {
	softmax := core.Composite("softmax", tensor.Space{}, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		lse := t.Apply(reduce.LogSumExpOp([]int{-1}, true), x[0])
		return []cr.NodeID{t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x[0], lse))}
	})
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	v, _ := tensor.FromFloat64([]float64{0, 1, 2}, 3)
	x := tp.Leaf(v)
	p := tp.Apply(softmax, x)
	w, _ := tensor.FromFloat64([]float64{1, 0, 0}, 3)
	g, err := tp.BackwardSeed(p, w) // the gradient of p[0]: p0 (e0 - p)
	if err != nil {
		panic(err)
	}
	y, _ := tp.Value(p)
	gx, _ := g.Of(x)
	name, _ := tp.OpName(p)
	fmt.Printf("%s %.4f\n%.4f\n", name, y.Float64s(), gx.Float64s())
	// Output:
	// softmax [0.0900 0.2447 0.6652]
	// [0.0819 -0.0220 -0.0599]
}

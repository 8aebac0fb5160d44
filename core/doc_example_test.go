package core_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// square is y = x^2, a float64 op with all three rules.
var square = chainrules.OpFunc[float64]{OpName: "square", F: func(in []chainrules.NodeID, x []float64) (float64, chainrules.Rule[float64], error) {
	return x[0] * x[0], &unaryRule{in: [1]chainrules.NodeID{in[0]}, d1: 2 * x[0], d2: 2}, nil
}}

// The package documentation's first program: record, then differentiate.
func Example() {
	t := core.NewTape[float64](chainrules.Float64Space{})
	x := t.Leaf(3)
	y := t.Apply(square, x) // any chainrules.Op[float64]
	g, err := t.Backward(y) // scalar output: the seed defaults to 1
	dx, _ := g.Of(x)        // 6
	fmt.Println(dx, err)
	// Output: 6 <nil>
}

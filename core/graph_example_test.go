package core_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The first four derivatives of f(x) = x^3 + sin x at x = 2, each a gradient of the
// one before, recorded on the tape: 3x^2 + cos x, 6x - sin x, 6 - cos x, sin x.
func ExampleTape_GradGraph() {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	x0, _ := tensor.FromFloat64([]float64{2}, 1)
	x := t.Leaf(x0)
	sum := reduce.SumOp(nil, false)
	d := t.Apply(sum, t.Apply(ew.AddOp, t.Apply(ew.PowScalarOp(3), x), t.Apply(ew.SinOp, x)))
	for k := 1; k <= 4; k++ {
		g, err := t.GradGraph(d, x) // d^k f / dx^k, as nodes on t
		if err != nil {
			fmt.Println(err)
			return
		}
		d = t.Apply(sum, g[0])
		v, _ := t.Value(d)
		fmt.Printf("f^(%d)(2) = %.6f\n", k, v.Float64s()[0])
	}
	// Output:
	// f^(1)(2) = 11.583853
	// f^(2)(2) = 11.090703
	// f^(3)(2) = 6.416147
	// f^(4)(2) = 0.909297
}

package main

import (
	"fmt"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// The README's first program, with this example's Mul.
func Example_readme() {
	t := core.NewTape[float64](chainrules.Float64Space{})
	x := t.Leaf(3)
	y := t.Apply(Mul, x, x) // Mul: examples/eager's product, a chainrules.Op[float64]
	g, err := t.Backward(y) // scalar output: the seed defaults to 1
	dx, _ := g.Of(x)        // 6
	fmt.Println(dx, err)
	// Output: 6 <nil>
}

package hvp_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The README's Quick start: a gradient with hvp.Grad, the usual way in.
func Example_quickStart() {
	// f(x) = sum_i x_i^3, recorded on a tape from the NodeIDs of its inputs
	f := func(t *hvp.Tape, x []chainrules.NodeID) chainrules.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.PowScalarOp(3), x[0]))
	}
	x, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	value, grad, err := hvp.Grad(f, []*tensor.Dense{x}) // f(x) and df/dx = 3 x^2
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(value, grad[0])
	// Output:
	// float64[] 36 float64[3] [3 12 27]
}

// The README's Quick start: the same engine driven by hand, one op on a tape.
func Example_quickStartTape() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	a := tape.Leaf(tensor.Scalar(3))
	b := tape.Apply(elementwise.MulOp, a, a) // b = a*a
	g, err := tape.Backward(b)               // a scalar output: the seed defaults to 1
	if err != nil {
		fmt.Println(err)
		return
	}
	db, _ := g.Of(a) // db/da = 2a
	fmt.Println(db)
	// Output:
	// float64[] 6
}

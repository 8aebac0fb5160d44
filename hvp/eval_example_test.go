package hvp_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Eval gives the value of a function without recording anything for gradients:
// here the mean squared error of a linear model on a validation point.
func ExampleEval() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		r := t.Apply(ew.SubOp, t.Apply(ew.MulOp, x[0], x[1]), x[2]) // w*u - y
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SquareOp, r))
	}
	w, _ := tensor.FromFloat64([]float64{2}, 1)
	u, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	y, _ := tensor.FromFloat64([]float64{2, 4, 7}, 3)
	loss, err := hvp.Eval(f, []*tensor.Dense{w, u, y})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loss)
	// Output:
	// float64[] 0.3333333333333333
}

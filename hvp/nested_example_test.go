package hvp_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// A gradient penalty: the gradient of |grad f(x)|^2 for f(x) = sum(x^3), through a
// gradient recorded on the tape (GradOf). grad f = 3x^2, so the penalty is
// sum 9x^4 and its gradient 36x^3.
func ExampleGradOf() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Apply(ew.MulOp, x[0], x[0]), x[0]))
	}
	x0, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	x := []*tensor.Dense{x0}
	penalty := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { // |grad f(x)|^2
		return hvp.Inner(t, hvp.GradOf(f)(t, x), hvp.GradOf(f)(t, x))
	}
	_, g, err := hvp.Grad(penalty, x) // 2 H grad f, through a recorded gradient
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g[0].Float64s())
	// Output: [36 288]
}

// The derivatives of f(x) = sum(sin x) along v, up to the fourth: nested recorded
// gradients and one forward sweep.
func ExampleDirectionalDerivatives() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, x[0]))
	}
	x, _ := tensor.FromFloat64([]float64{0}, 1)
	v, _ := tensor.FromFloat64([]float64{1}, 1)
	d, err := hvp.DirectionalDerivatives(f, []*tensor.Dense{x}, []*tensor.Dense{v}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3g\n", d) // sin, cos, -sin, -cos, sin at 0
	// Output: [0 1 0 -1 0]
}

package elementwise_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// The third derivative of tanh, tanh"'(x) = -2 (1 - t²)(1 - 3 t²) with t = tanh x,
// by three recorded gradients: the first records tanh's pullback as the fused op
// tanh_backward(t, g) = (1 - t²) g, whose own recorded pullback is mul3(-2; t, g, w)
// = -2 t g w and tanh_backward again, one pass per term at every order.
func ExampleTanhOp_thirdDerivative() {
	xv, _ := tensor.FromFloat64([]float64{-1, 0, 0.5}, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(xv)
	ones := tape.Constant(tensor.Ones(tensor.Float64, 3))
	d := tape.Apply(elementwise.TanhOp, x)
	for range 3 {
		g, err := tape.GradGraphSeed(d, ones, x) // elementwise: d' at each x
		if err != nil {
			fmt.Println(err)
			return
		}
		d = g[0]
	}
	v, _ := tape.Value(d)
	fmt.Printf("%.6f\n", v.Float64s())
	// Output:
	// [0.621627 -2.000000 -0.565209]
}

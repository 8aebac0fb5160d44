package nn_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// F.conv2d(x, w, b, stride=1, padding=1) line by line: a 2x2 kernel of ones
// sums each window of the zero-padded input, and the gradient of sum(y) with
// respect to x counts the windows that cover each pixel.
func ExampleConv2dOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 1, 1, 2, 2) // [N, Cin, H, W]
	x := tp.Leaf(xv)
	w := tp.Leaf(tensor.Ones(tensor.Float64, 1, 1, 2, 2)) // [Cout, Cin/groups, kH, kW]
	b := tp.Leaf(tensor.Full(tensor.Float64, 0.5, 1))     // [Cout]
	y := tp.Apply(nn.Conv2dOp(nn.Stride(1), nn.Padding(1)), x, w, b)
	g, err := tp.Backward(tp.Apply(reduce.SumOp([]int{0, 1, 2, 3}, false), y))
	if err != nil {
		fmt.Println(err)
		return
	}
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	gw, _ := g.Of(w)
	gb, _ := g.Of(b)
	fmt.Println("y", yv.Shape(), yv.Float64s())
	fmt.Println("dx", gx.Float64s(), "dw", gw.Float64s(), "db", gb.Float64s())
	// Output:
	// y [1 1 3 3] [1.5 3.5 2.5 4.5 10.5 6.5 3.5 7.5 4.5]
	// dx [4 4 4 4] dw [10 10 10 10] db [9]
}

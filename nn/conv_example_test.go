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

// A float32 model, as PyTorch users train (parameters from nn.InitConv with
// nn.WithDType(tensor.Float32)): conv2d, max_pool2d and their gradients stay
// float32, computed by the float32 kernels rather than widened. With a 2x2
// kernel of ones on the zero-padded 3x3 input the pooled maxima are the four
// inner window sums, 1+2+4+5 = 12, 16, 24 and 28; dx counts, over both output
// channels, the selected windows covering each pixel, and dw sums the pixels
// under each kernel position over those windows.
func ExampleConv2dOp_float32() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	x := tp.Leaf(xv)
	w := tp.Leaf(tensor.Ones(tensor.Float32, 2, 1, 2, 2))
	y := tp.Apply(nn.Conv2dOp(nn.Padding(1)), x, w)    // [1 2 4 4]
	p := tp.ApplyMulti(nn.MaxPool2dOp([]int{2}), y)[0] // [1 2 2 2]
	g, err := tp.Backward(tp.Apply(reduce.SumOp([]int{0, 1, 2, 3}, false), p))
	if err != nil {
		fmt.Println(err)
		return
	}
	pv, _ := tp.Value(p)
	gx, _ := g.Of(x)
	gw, _ := g.Of(w)
	fmt.Println(pv.DType(), pv.Shape(), pv.Float32s())
	fmt.Println(gx.DType(), gx.Float32s())
	fmt.Println(gw.DType(), gw.Float32s())
	// Output:
	// float32 [1 2 2 2] [12 16 24 28 12 16 24 28]
	// float32 [2 4 2 4 8 4 2 4 2]
	// float32 [12 16 24 28 12 16 24 28]
}

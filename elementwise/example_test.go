package elementwise_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// The gradient of sum(tanh(x) * w) with w broadcast over the rows of x.
func Example() {
	xv, _ := tensor.FromFloat64([]float64{0, 0.5, -1, 2}, 2, 2)
	wv, _ := tensor.FromFloat64([]float64{1, -2}, 2)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x, w := tape.Leaf(xv), tape.Leaf(wv)
	y := tape.Apply(elementwise.MulOp, tape.Apply(elementwise.TanhOp, x), w)
	g, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 2, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	gx, _ := g.Of(x)
	gw, _ := g.Of(w) // summed over the broadcast rows
	fmt.Printf("%.4f\n%.4f\n", gx.Float64s(), gw.Float64s())
	// Output:
	// [1.0000 -1.5729 0.4200 -0.1413]
	// [-0.7616 1.4261]
}

// Complex inputs follow PyTorch's convention: for holomorphic f the pullback is
// conj(f'(z)) ybar.
func ExampleSquare() {
	z := tensor.ScalarComplex(1 + 2i)
	_, rule, _ := elementwise.SquareOp.Apply([]cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{z})
	cs, _ := rule.Pullback(tensor.ScalarComplex(1), nil)
	fmt.Println(cs[0].Value.At()) // 2 conj(z)
	// Output:
	// (2-4i)
}

// Maximum splits the cotangent evenly between tied operands.
func ExampleMaximum() {
	a, _ := tensor.FromFloat64([]float64{1, 3, 2}, 3)
	b, _ := tensor.FromFloat64([]float64{1, 0, 5}, 3)
	y, _ := elementwise.Maximum(a, b)
	_, rule, _ := elementwise.MaximumOp.Apply([]cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}, []*tensor.Dense{a, b})
	cs, _ := rule.Pullback(tensor.Ones(tensor.Float64, 3), nil)
	fmt.Println(y.Float64s(), cs[0].Value.Float64s(), cs[1].Value.Float64s())
	// Output:
	// [1 3 5] [0.5 1 0] [0.5 0 1]
}

func ExamplePowScalar() {
	x, _ := tensor.FromFloat64([]float64{4, 9}, 2)
	y, _ := elementwise.PowScalar(x, 0.5)
	fmt.Println(y.Float64s())
	// Output:
	// [2 3]
}

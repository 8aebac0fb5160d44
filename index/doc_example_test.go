package index_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package documentation's Rosenbrock function, sum_i 100 (x_{i+1} - x_i^2)^2 +
// (1 - x_i)^2, from the shifted views x[1:] and x[:-1]; its gradient vanishes at
// its minimum x = (1, ..., 1).
func Example_rosenbrock() {
	v := tensor.Ones(tensor.Float64, 4)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(v)
	hi := tape.Apply(index.SliceOp(index.Range{Start: 1, Stop: index.End}), x)
	lo := tape.Apply(index.SliceOp(index.Range{Stop: -1}), x)
	a := tape.Apply(elementwise.SubOp, hi, tape.Apply(elementwise.SquareOp, lo))
	b := tape.Apply(elementwise.SubOp, tape.Constant(tensor.Scalar(1)), lo)
	terms := tape.Apply(elementwise.AddOp, tape.Apply(elementwise.ScaleOp(100), tape.Apply(elementwise.SquareOp, a)), tape.Apply(elementwise.SquareOp, b))
	f := tape.Apply(reduce.SumOp(nil, false), terms)
	g, err := tape.Backward(f)
	if err != nil {
		panic(err)
	}
	fv, _ := tape.Value(f)
	gx, _ := g.Of(x)
	fmt.Println(fv, gx)
	// Output:
	// float64[] 0 float64[4] [0 0 0 0]
}

package reduce_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The gradient of max over the rows splits evenly between tied maxima.
func ExampleMaxOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{1, 4, 4, 2, 0, 3}, 2, 3)
	x := tape.Leaf(xv)
	y := tape.Apply(reduce.MaxOp([]int{1}, false), x)
	loss := tape.Apply(reduce.SumOp(nil, false), y)
	g, err := tape.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	yv, _ := tape.Value(y)
	gx, _ := g.Of(x)
	fmt.Println(yv)
	fmt.Println(gx)
	// Output:
	// float64[2] [4 3]
	// float64[2 3] [[0 0.5 0.5] [0 0 1]]
}

func ExampleVar() {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4)
	biased, _ := reduce.Var(x, nil, 0, false)
	unbiased, _ := reduce.Var(x, nil, 1, false)
	fmt.Println(biased, unbiased)
	// Output:
	// float64[] 1.25 float64[] 1.6666666666666667
}

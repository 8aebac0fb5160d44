// Command customop walks through adding an op from outside the project: it records
// softplus (package softplus next to this file, built with elementwise.Unary) on a
// tape, sums it to a scalar loss L = sum_i softplus(x_i), and prints the value and
// the gradient dL/dx_i = sigmoid(x_i). The rules themselves are proved by ruletest
// in softplus/softplus_test.go; run
//
//	go test ./examples/customop/...
package main

import (
	"fmt"
	"log"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/examples/customop/softplus"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	x, err := tensor.FromFloat64([]float64{-2, 0, 1, 3}, 4)
	if err != nil {
		log.Fatal(err)
	}
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	xid := tape.Leaf(x)
	y := tape.Apply(softplus.Op, xid)
	// The loss L = sum_i y_i has the cotangent ybar = 1 for every y_i. Tape errors
	// are sticky, so BackwardSeed also reports a failure of Apply.
	grads, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 4))
	if err != nil {
		log.Fatal(err)
	}
	yv, _ := tape.Value(y)
	g, _ := grads.Of(xid)
	fmt.Printf("x           = %.6f\n", x.Float64s())
	fmt.Printf("softplus(x) = %.6f\n", yv.Float64s())
	fmt.Printf("L = sum     = %.6f\n", real(tensor.Sum(yv)))
	fmt.Printf("dL/dx       = %.6f  (= sigmoid(x))\n", g.Float64s())
}

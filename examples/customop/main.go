// Command customop walks through adding an op from outside the project: it records
// softplus (package softplus next to this file) on a tape, sums it to a scalar loss
// L = sum_i softplus(x_i), and prints the value and the gradient dL/dx_i =
// sigmoid(x_i). The rules themselves are proved by ruletest in
// softplus/softplus_test.go; run
//
//	go test ./examples/customop/...
package main

import (
	"fmt"
	"os"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/examples/customop/softplus"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "customop:", err)
		os.Exit(1)
	}
}

func run() error {
	x, err := tensor.FromFloat64([]float64{-2, 0, 1, 3}, 4)
	if err != nil {
		return err
	}
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	xid := tape.Leaf(x)
	y := tape.Apply(softplus.Op(), xid)
	yv, err := tape.Value(y)
	if err != nil {
		return err
	}
	// The loss L = sum_i y_i has the cotangent ybar = 1 for every y_i.
	grads, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 4))
	if err != nil {
		return err
	}
	g, ok := grads.Of(xid)
	if !ok {
		return chainrules.Errorf(chainrules.ErrMissingNode, "no gradient for x")
	}
	fmt.Printf("x           = %v\n", fmtSlice(x.Float64s()))
	fmt.Printf("softplus(x) = %v\n", fmtSlice(yv.Float64s()))
	fmt.Printf("L = sum     = %.6f\n", real(tensor.Sum(yv)))
	fmt.Printf("dL/dx       = %v  (= sigmoid(x))\n", fmtSlice(g.Float64s()))
	return nil
}

func fmtSlice(v []float64) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.6f", x)
	}
	return s + "]"
}

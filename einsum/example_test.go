package einsum_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

func ExampleEval() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{5, 6, 7, 8}, 2, 2)
	c, _ := einsum.Eval("ij,jk->ik", a, b)
	tr, _ := einsum.Eval("ii->", a)
	d, _ := einsum.Eval("ii->i", a)
	fmt.Println(c)
	fmt.Println(tr)
	fmt.Println(d)
	// Output:
	// float64[2 2] [[19 22] [43 50]]
	// float64[] 5
	// float64[2] [1 4]
}

func ExampleNewPlan() {
	// A matrix-matrix-vector chain: the plan contracts B v first.
	p, _ := einsum.NewPlan("ij,jk,k->i", []int{100, 100}, []int{100, 100}, []int{100})
	fmt.Println(p.Path(), p.Flops())
	// Output:
	// [[1 2] [0 1]] 40000
}

func ExampleOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	a := tape.Leaf(tensor.Ones(tensor.Float64, 2, 2))
	x, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	v := tape.Leaf(x)
	y := tape.Apply(einsum.Op("ij,j->i"), a, v)  // y = A x
	loss := tape.Apply(einsum.Op("i,i->"), y, y) // |A x|^2
	g, _ := tape.Backward(loss)
	ga, _ := g.Of(a)
	fmt.Println(ga) // 2 (A x) x^T
	// Output:
	// float64[2 2] [[6 12] [6 12]]
}

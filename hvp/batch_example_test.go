package hvp_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Three Hessian-vector products of f(x) = sum(x^3) / 3, whose Hessian is diag(2 x),
// spread over two goroutines: each has a recording of f of its own, and the products
// are those of three calls of Apply.
func ExampleOperator_ApplyBatch() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(ew.ScaleOp(1.0/3), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.PowScalarOp(3), x[0])))
	}
	x, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	op, err := hvp.NewOperator(f, []*tensor.Dense{x})
	if err != nil {
		panic(err)
	}
	op.Workers = 2 // at most two goroutines; 0 means min(k, GOMAXPROCS)
	var vs [][]*tensor.Dense
	for _, v := range [][]float64{{1, 0}, {0, 1}, {1, 1}} {
		vt, _ := tensor.FromFloat64(v, 2)
		vs = append(vs, []*tensor.Dense{vt})
	}
	hvs, err := op.ApplyBatch(vs)
	if err != nil {
		panic(err)
	}
	for i, hv := range hvs {
		fmt.Println(i, hv[0].Float64s())
	}
	// Output:
	// 0 [2 0]
	// 1 [0 4]
	// 2 [2 4]
}

// The columns of the Hessian as a batch in the flat view: dst[i] = H v[i].
func ExampleOperator_ApplyBatchFlat() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(ew.ScaleOp(1.0/3), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.PowScalarOp(3), x[0])))
	}
	x, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	op, err := hvp.WithWorkers(2).NewOperator(f, []*tensor.Dense{x})
	if err != nil {
		panic(err)
	}
	v := [][]float64{{1, 0}, {0, 1}}
	dst := [][]float64{make([]float64, 2), make([]float64, 2)}
	if err := op.ApplyBatchFlat(dst, v); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output:
	// [[2 0] [0 4]]
}

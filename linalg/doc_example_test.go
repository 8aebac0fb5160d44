package linalg_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package doc's first lines: a Cholesky factor, a solve with it, an eigenvalue
// decomposition on a tape, and a solve without one.
func Example() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	kv, _ := tensor.FromFloat64([]float64{4, 2, 2, 3}, 2, 2)
	yv, _ := tensor.FromFloat64([]float64{1, 2}, 2, 1)
	k, y, a := tape.Leaf(kv), tape.Constant(yv), tape.Leaf(kv)
	av, bv := kv, yv
	l := tape.Apply(linalg.CholeskyOp(false), k)
	alpha := tape.Apply(linalg.CholeskySolveOp(false), y, l)
	w := tape.ApplyMulti(linalg.EighOp(), a)
	x, err := linalg.Solve(av, bv)
	if err != nil || tape.Err() != nil {
		fmt.Println(err, tape.Err())
		return
	}
	lv, _ := tape.Value(l)
	alv, _ := tape.Value(alpha)
	wv, _ := tape.Value(w[0])
	fmt.Printf("L = %.4f\nK^-1 y = %.4f\nw = %.4f\nsolve = %.4f\n", lv.Float64s(), alv.Float64s(), wv.Float64s(), x.Float64s())
	// Output:
	// L = [2.0000 0.0000 1.0000 1.4142]
	// K^-1 y = [-0.1250 0.7500]
	// w = [1.4384 5.5616]
	// solve = [-0.1250 0.7500]
}

package einsum_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package documentation's two uses: evaluation without a tape, and an
// attention-score contraction recorded on one.
func Example() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{5, 6, 7, 8}, 2, 2)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	q := tape.Leaf(tensor.Ones(tensor.Float64, 1, 2, 3, 4))
	k := tape.Leaf(tensor.Ones(tensor.Float64, 1, 2, 5, 4))

	c, err := einsum.Eval("ij,jk->ik", a, b)            // no tape
	y := tape.Apply(einsum.Op("bhqd,bhkd->bhqk"), q, k) // recorded

	scores, _ := tape.Value(y)
	fmt.Println(c, err)
	fmt.Println(scores.Shape(), scores.At(0, 1, 2, 3))
	// Output:
	// float64[2 2] [[19 22] [43 50]] <nil>
	// [1 2 3 5] (4+0i)
}

// Op's documentation: a matrix product recorded on a tape.
func ExampleOp_matmul() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	a := tape.Leaf(tensor.Ones(tensor.Float64, 2, 3))
	b := tape.Leaf(tensor.Ones(tensor.Float64, 3, 2))
	y := tape.Apply(einsum.Op("ij,jk->ik"), a, b)
	v, err := tape.Value(y)
	fmt.Println(v, err)
	// Output:
	// float64[2 2] [[3 3] [3 3]] <nil>
}

package permute_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// The gradient of sum(w * BroadcastTo(b)) with respect to b sums w over the
// broadcast axis.
func ExampleBroadcastToOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	bv, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	b := tape.Leaf(bv)
	y := tape.Apply(permute.BroadcastToOp(2, 3), b)
	seed, _ := tensor.FromFloat64([]float64{1, 10, 100, 1000, 10000, 100000}, 2, 3)
	g, err := tape.BackwardSeed(y, seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	gb, _ := g.Of(b)
	fmt.Println(gb)
	// Output:
	// float64[3] [1001 10010 100100]
}

func ExamplePermute() {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	y, _ := permute.Permute(x, 1, 0)
	fmt.Println(y)
	z, _ := permute.Materialize(y)
	fmt.Println(z.IsContiguous())
	// Output:
	// float64[3 2] [[1 4] [2 5] [3 6]]
	// true
}

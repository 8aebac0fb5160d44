package permute_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package documentation's recording: a permutation is a view, and its pullback
// permutes the cotangent back.
func Example_recording() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.RandN(nil, tensor.Float64, 2, 3, 4))
	y := tape.Apply(permute.PermuteOp(2, 0, 1), x) // shape [4 2 3]
	yv, _ := tape.Value(y)
	g, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 4, 2, 3))
	if err != nil {
		panic(err)
	}
	gx, _ := g.Of(x)
	fmt.Println(yv.Shape(), gx.Shape())
	// Output:
	// [4 2 3] [2 3 4]
}

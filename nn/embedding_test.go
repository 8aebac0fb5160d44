package nn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestEmbeddingBadIndex(t *testing.T) {
	_, err := nn.Embedding(tensor.New(tensor.Float64, 4, 2), 1, 4)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// A lookup of rows 2, 0 and 2 of a 5 x 2 table: the gradient of the sum of the
// looked-up values is 2 in both columns of row 2, 1 in those of row 0, and comes
// as those two rows only.
func ExampleEmbeddingOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	table := tp.Leaf(tensor.RandN(nil, tensor.Float64, 5, 2))
	y := tp.Apply(nn.EmbeddingOp(2, 0, 2), table)
	g, _ := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 3, 2))
	rows, v, _ := g.Rows(table)
	fmt.Println("rows", rows, "values", v.Float64s())
	// Output: rows [0 2] values [1 1 2 2]
}

package elementwise_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestSmallOpAllocations bounds the allocations of an elementwise op on small
// operands of one shape, where they are the cost (GradBench's lstm records
// hundreds of thousands of such ops): the output's data and header, and the rule,
// which holds its shapes and its one-run layout in itself.
func TestSmallOpAllocations(t *testing.T) {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7}, 7)
	b, _ := tensor.FromFloat64([]float64{7, 6, 5, 4, 3, 2, 1}, 7)
	in := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
	x, y := []*tensor.Dense{a, b}, make([]*tensor.Dense, 1)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := elementwise.MulOp.Apply(in, x, y); err != nil {
			t.Fatal(err)
		}
	})
	require.LessOrEqual(t, allocs, 3.0, "mul of two 7-element tensors")
}

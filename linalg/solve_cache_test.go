package linalg_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestSolveOpReusedAfterInPlaceUpdate reuses one SolveOp value across evaluations
// while A is updated in place between them, as an optimiser updates its parameters:
// the op's factorisation cache must not serve the factors of A's old contents.
func TestSolveOpReusedAfterInPlaceUpdate(t *testing.T) {
	solve := linalg.SolveOp()
	a, _ := tensor.FromFloat64([]float64{4, 1, 2, 3}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	first, err := cr.Eval(solve, a, b)
	require.NoError(t, err)
	a.SetFloat64(10, 0, 0) // in place: same *Dense, new contents
	second, err := cr.Eval(solve, a, b)
	require.NoError(t, err)
	fresh, err := linalg.Solve(a, b)
	require.NoError(t, err)
	require.Equal(t, fresh.Float64s(), second.Float64s())
	require.NotEqual(t, first.Float64s(), second.Float64s())
}

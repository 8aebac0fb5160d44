package ruletest_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// shiftedRows is index_select's rule with a RowPullback that puts every term one
// row too far: its Pullback is right, so only the rows check can catch it.
type shiftedRows struct {
	cr.Rule[*tensor.Dense]
	rows []int
}

func (r shiftedRows) RowPullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	shifted := make([]int, len(r.rows))
	for k, i := range r.rows {
		shifted[k] = i + 1
	}
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.Inputs()[0], Rows: shifted, Value: ybar[0]}), nil
}

type shiftedRowsOp struct{ rows []int }

func (shiftedRowsOp) Name() string    { return "shifted_rows" }
func (shiftedRowsOp) NumOutputs() int { return 1 }

func (o shiftedRowsOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	r, err := index.IndexSelectOp(0, o.rows...).Apply(in, x, y)
	if err != nil {
		return nil, err
	}
	return shiftedRows{Rule: r, rows: o.rows}, nil
}

// The rows check passes index_select's row-sparse pullback and catches one whose
// rows disagree with its Pullback.
func TestRowsCheck(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(3, 1)), tensor.Float64, 5, 2)
	require.NoError(t, ruletest.Verify[*tensor.Dense](tensor.Space{}, index.IndexSelectOp(0, 3, 0, 3), []*tensor.Dense{x}, ruletest.Config{}))

	err := ruletest.Verify[*tensor.Dense](tensor.Space{}, shiftedRowsOp{rows: []int{3, 0, 3}}, []*tensor.Dense{x}, ruletest.Config{})
	require.Error(t, err)
	var f *ruletest.Failure
	require.True(t, errors.As(err, &f))
	assert.Equal(t, ruletest.CheckRows, f.Check)
	assert.Contains(t, err.Error(), "RowPullback")
}

package oracle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// widened runs a double-precision op on single-precision inputs through
// opkit.ApplyWidened; with spoil set, its single-precision pullback is doubled,
// a wrong derivative that ReplaySingle must catch.
type widened struct {
	cr.Op[*tensor.Dense]
	spoil bool
}

func (o widened) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if !opkit.HasSingle(x) {
		return o.Op.Apply(in, x, y)
	}
	r, err := opkit.ApplyWidened(o.Op, in, x, y)
	if err == nil && o.spoil {
		return spoiled{r}, nil
	}
	return r, err
}

// spoiled doubles the pullback of its rule (and has no other method).
type spoiled struct{ cr.Rule[*tensor.Dense] }

func (r spoiled) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	n := len(dst)
	dst, err := r.Rule.Pullback(ybar, has, dst)
	for i := n; err == nil && i < len(dst); i++ {
		dst[i].Value = tensor.Scale(dst[i].Value, 2)
	}
	return dst, err
}

// ReplaySingle replays the float32 and complex64 cases (skipped by Replay) in
// single precision, and catches a wrong single-precision output.
func TestReplaySingle(t *testing.T) {
	cases, err := oracle.Load("exp")
	require.NoError(t, err)
	rep := oracle.ReplaySingle(t, cases, inputsWith(widened{Op: expOp(false)}))
	assert.Equal(t, len(cases), rep.Replayed)
	assert.Equal(t, len(cases), rep.Passed)
	assert.Empty(t, rep.Skipped)
	// single counts the single-precision cases with elements: an empty case has
	// no derivative to get wrong.
	single := 0
	for _, c := range cases {
		x, err := c.DenseInputs()
		require.NoError(t, err)
		if (c.DType == "float32" || c.DType == "complex64") && x[0].Size() > 0 {
			single++
		}
	}
	require.Positive(t, single)

	_, err = oracle.Run(cases, inputsWith(widened{Op: expOp(false), spoil: true}))
	require.NoError(t, err, "Run skips the single-precision cases")
	rep, err = oracle.RunSingle(cases, inputsWith(widened{Op: expOp(false), spoil: true}))
	require.ErrorIs(t, err, oracle.ErrMismatch)
	assert.Equal(t, len(cases)-single, rep.Passed, "every spoiled single-precision case with elements fails")
}

package core_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// A node recorded through a library helper (einsum.Record, index.ApplySplit) has the
// program's line as its anomaly site and DOT tooltip, named dir/file:line as
// apply-time errors name theirs, never a line inside the library.
func TestAnomalySiteOfLibraryHelpers(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	require.NoError(t, tp.DetectAnomaly(true))
	huge, err := tensor.FromFloat64([]float64{1e200, 1}, 2) // huge . huge overflows
	require.NoError(t, err)
	c := tp.Constant(huge)
	_, site := einsum.Record(tp, "i,i->", c, c), here()
	require.ErrorIs(t, tp.Err(), cr.ErrNonFinite)
	msg := tp.Err().Error()
	assert.Contains(t, msg, "einsum was recorded at "+site)
	assert.NotContains(t, msg, "einsum/")
	assert.NotContains(t, msg, "/work/")

	tp = core.NewTape[*tensor.Dense](tensor.Space{})
	require.NoError(t, tp.DetectAnomaly(true))
	x := tp.Leaf(tensor.Scalar(1))
	y, ysite := einsum.Record(tp, "->", x), here()
	v, err := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4)
	require.NoError(t, err)
	parts, psite := index.ApplySplit(tp, tp.Leaf(v), 0, 2, 2), here()
	require.NoError(t, tp.Err())
	require.Len(t, parts, 2)
	var buf bytes.Buffer
	require.NoError(t, tp.WriteDOT(&buf))
	dot := buf.String()
	assert.Contains(t, dot, `tooltip="`+ysite+`"`, "node %v", y)
	assert.Contains(t, dot, `tooltip="`+psite+`"`)
	assert.NotContains(t, dot, "einsum/op.go")
	assert.NotContains(t, dot, "index/split.go")
	assert.NotContains(t, dot, "/work/")
}

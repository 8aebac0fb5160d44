package core_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// GradGraph visits only the ops between wrt and out: the op that computed a node
// of wrt, when no other node of wrt lies before it, is not differentiated again,
// so it needs no recorded pullback (keep_mul has none). This was a bug: the sweep
// recorded that op's pullback too, and failed with an OrderError.
func TestGradGraphDoesNotDifferentiateTheOpOfAWrtNode(t *testing.T) {
	tp := newTape()
	a, b := tp.Leaf(2), tp.Leaf(3)
	y := tp.Apply(keepMul, a, b) // 6
	z := tp.Apply(cubeDef, y)    // y^3
	n := tp.Len()
	g, err := tp.GradGraph(z, y)
	require.NoError(t, err)
	v, err := tp.Value(g[0])
	require.NoError(t, err)
	assert.Equal(t, 108.0, v, "dz/dy = 3 y^2")
	g, err = tp.GradGraph(y, y)
	require.NoError(t, err)
	v, err = tp.Value(g[0])
	require.NoError(t, err)
	assert.Equal(t, 1.0, v, "dy/dy = 1")
	assert.Less(t, tp.Len()-n, 12, "only the ops of the two answers were recorded")

	// Through keep_mul to a leaf, its pullback is needed, and its absence is the
	// OrderError it always was.
	_, err = tp.GradGraph(z, y, a)
	var oe *cr.OrderError
	assert.ErrorAs(t, err, &oe)
}

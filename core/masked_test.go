package core_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// maskRecorder is mul that records the need mask the tape passes to ApplyMasked.
type maskRecorder struct {
	cr.OpFunc[float64]
	got *[][]bool
}

func (m maskRecorder) ApplyMasked(in []cr.NodeID, x, y []float64, need []bool) (cr.Rule[float64], error) {
	*m.got = append(*m.got, append([]bool(nil), need...))
	return m.Apply(in, x, y)
}

func TestMaskedOpReceivesNeed(t *testing.T) {
	var got [][]bool
	op := maskRecorder{OpFunc: mulOp, got: &got}
	tp := newTape()
	x, c := tp.Leaf(2), tp.Constant(3)
	fromConst := tp.Apply(sinOp, c)
	y := tp.Apply(op, x, fromConst)
	tp.Apply(op, c, fromConst)
	tp.NoGrad(func() { tp.Apply(op, x, x) })
	require.NoError(t, tp.Err())
	assert.Equal(t, [][]bool{{true, false}, {false, false}, {false, false}}, got)

	g, err := tp.Backward(y)
	require.NoError(t, err)
	dx, _ := g.Of(x)
	assert.InDelta(t, sinOf(3), dx, 1e-15) // d(x sin 3)/dx
}

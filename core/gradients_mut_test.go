package core_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// copySpy is spyRecycler keeping copies of the lists, which the engine clears
// after the call.
type copySpy struct {
	tensor.Space
	calls      int
	dead, live []*tensor.Dense
}

func (s *copySpy) Recycle(dead, live []*tensor.Dense) {
	s.calls++
	s.dead, s.live = slices.Clone(dead), slices.Clone(live)
}

// RecycleSweeps hands the sweeps' temporaries to the Space and keeps the tape:
// the recorded values and the caller's keep are live, and a later sweep works.
func TestRecycleSweepsHandsBackTheSweepsTemporaries(t *testing.T) {
	sp := &copySpy{}
	tp := core.NewTape[*tensor.Dense](sp)
	tp.EnableRecycling()
	// Large enough for the pool (tensor.Space.Reusable).
	xv := tensor.RandN(nil, tensor.Float64, 2048)
	x := tp.Leaf(xv)
	e := tp.Apply(elementwise.ExpOp, tp.Apply(elementwise.SinOp, x))
	out := tp.Apply(reduce.SumOp(nil, false), e)
	g, err := tp.Backward(out)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	tp.RecycleSweeps(gx)
	require.Equal(t, 1, sp.calls)
	require.NotEmpty(t, sp.dead, "the sweep's temporaries are reused")
	ev, err := tp.Value(e)
	require.NoError(t, err)
	for _, v := range []*tensor.Dense{xv, ev, gx} {
		assert.True(t, slices.Contains(sp.live, v), "a recorded value or a kept result is live")
	}
	g, err = tp.Backward(out) // the tape is still there
	require.NoError(t, err)
	gx2, _ := g.Of(x)
	assert.Equal(t, gx.Float64s(), gx2.Float64s())
	// Nothing was swept since: a second call has nothing to hand back.
	tp.RecycleSweeps(gx2)
	tp.RecycleSweeps(gx2)
	assert.Equal(t, 2, sp.calls)
}

// A node that got both a dense cotangent and row-sparse terms has no row-sparse
// form: Rows reports false, and Of has the whole cotangent.
func TestRowsOfANodeWithADenseCotangentToo(t *testing.T) {
	tp := newTensorTape()
	w := tp.Leaf(tensor.Ones(tensor.Float64, 3, 2))
	sel := tp.Apply(index.IndexSelectOp(0, 2), w)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.AddOp, tp.Apply(reduce.SumOp([]int{0}, false), w), tp.Apply(reduce.SumOp([]int{0}, false), sel)))
	require.NoError(t, tp.Err())
	g, err := tp.Backward(y)
	require.NoError(t, err)
	_, _, ok := g.Rows(w)
	assert.False(t, ok, "w has a dense cotangent too")
	gw, ok := g.Of(w)
	require.True(t, ok)
	assert.Equal(t, []float64{1, 1, 1, 1, 2, 2}, gw.Contiguous().Float64s())

	// Only through the lookup: the row-sparse form.
	tp = newTensorTape()
	w = tp.Leaf(tensor.Ones(tensor.Float64, 3, 2))
	y = tp.Apply(reduce.SumOp(nil, false), tp.Apply(index.IndexSelectOp(0, 2), w))
	g, err = tp.Backward(y)
	require.NoError(t, err)
	rows, v, ok := g.Rows(w)
	require.True(t, ok)
	assert.Equal(t, []int{2}, rows)
	assert.Equal(t, []float64{1, 1}, v.Contiguous().Float64s())
}

// Dense(true) holds every node's cotangent, and zeros shaped like the node where
// the sweep produced none.
func TestDenseZeroFill(t *testing.T) {
	tp := newTape()
	x, z := tp.Leaf(0.4), tp.Leaf(-0.9)
	unused := tp.Leaf(3)
	y := tp.Apply(mulOp, tp.Apply(sinOp, x), z)
	g, err := tp.Backward(y)
	require.NoError(t, err)
	d, err := g.Dense(true)
	require.NoError(t, err)
	require.Len(t, d, tp.Len())
	gx, _ := g.Of(x)
	gz, _ := g.Of(z)
	assert.Equal(t, gx, d[x.Index()])
	assert.Equal(t, gz, d[z.Index()])
	assert.NotZero(t, gx)
	assert.Zero(t, d[unused.Index()])
	assert.Zero(t, d[y.Index()], "an inner node's cotangent is not kept")
}

// A transposed linear map takes one cotangent per output: fewer is an error, not a
// panic.
func TestLinearMapTransposeArity(t *testing.T) {
	_, lin, err := core.Linearize[float64](cr.Float64Space{}, func(tp *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{tp.Apply(sinOp, x[0]), tp.Apply(mulOp, x[0], x[0])}
	}, 0.5)
	require.NoError(t, err)
	_, err = lin.Transpose().Apply(1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = lin.Transpose().Apply(1, 2, 3)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = lin.Apply()
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// A value the caller read with Value escaped: Release never hands its storage
// back for reuse, even from an op whose rule promises fresh storage.
func TestReleaseKeepsEscapedValues(t *testing.T) {
	sp := &copySpy{}
	tp := core.NewTape[*tensor.Dense](sp)
	tp.EnableRecycling()
	x := tp.Leaf(tensor.RandN(nil, tensor.Float64, 2048))
	e := tp.Apply(elementwise.ExpOp, tp.Apply(elementwise.SinOp, x))
	e2 := tp.Apply(elementwise.ExpOp, e)
	out := tp.Apply(reduce.SumOp(nil, false), e2)
	ev, err := tp.Value(e) // escapes
	require.NoError(t, err)
	g, err := tp.Backward(out)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	tp.Release(gx)
	require.Equal(t, 1, sp.calls)
	assert.False(t, slices.Contains(sp.dead, ev), "an escaped value was handed back for reuse")
}

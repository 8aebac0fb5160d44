package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// lseFromParts records max(x) + log sum exp(x - max(x)) on tp after pad
// constants: with pad 0 the graph has 7 nodes, and its Backward keeps its slots
// in the Gradients' own allocation; with pad 16 it has 23 and does not.
func lseFromParts(tp *core.Tape[*tensor.Dense], xv *tensor.Dense, pad int) (x, out cr.NodeID) {
	for range pad {
		tp.Constant(tensor.Scalar(1.0))
	}
	x = tp.Leaf(xv)
	a := tp.Apply(reduce.MaxOp(nil, false), x)
	e := tp.Apply(elementwise.ExpOp, tp.Apply(elementwise.SubOp, x, a))
	s := tp.Apply(elementwise.LogOp, tp.Apply(reduce.SumOp(nil, false), e))
	return x, tp.Apply(elementwise.AddOp, a, s)
}

// TestSmallSweepSlots checks the Gradients of small graphs, whose slots, sums and
// row-sparse terms live in the Gradients' allocation: the gradient is bit for bit
// that of the same graph past the small size, and each Backward has slots of its
// own, which a later sweep of the same tape does not touch.
func TestSmallSweepSlots(t *testing.T) {
	xv := tensor.RandN(nil, tensor.Float64, 3000)
	// A tie at the maximum, so that x gets two row-sparse terms' rows.
	data := xv.Float64s()
	data[7], data[2500] = 9, 9
	grad := func(pad int) (*core.Tape[*tensor.Dense], cr.NodeID, cr.NodeID, []float64) {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x, out := lseFromParts(tp, xv, pad)
		require.NoError(t, tp.Err())
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, ok := g.Of(x)
		require.True(t, ok)
		return tp, x, out, append([]float64(nil), gx.Float64s()...)
	}
	_, _, _, want := grad(16)
	tp, x, out, got := grad(0)
	require.Equal(t, want, got, "small graph against the same graph past smallSweep")

	// Two sweeps of one small tape: the first's slots stay as they were.
	g1, err := tp.Backward(out)
	require.NoError(t, err)
	g1x, ok := g1.Of(x)
	require.True(t, ok)
	first := append([]float64(nil), g1x.Float64s()...)
	g2, err := tp.BackwardSeed(out, tensor.Scalar(2.0), core.AllNodes())
	require.NoError(t, err)
	g2x, ok := g2.Of(x)
	require.True(t, ok)
	require.Equal(t, first, g1x.Float64s(), "the first sweep's gradient after a second sweep")
	for i, v := range g2x.Float64s() {
		require.Equal(t, 2*first[i], v, "seed 2: twice the gradient, exactly (element %d)", i)
	}
	require.Equal(t, 1, g1.Len(), "only the leaf's cotangent is kept")
	require.Equal(t, 7, g2.Len(), "AllNodes keeps every node's")

	// Row-sparse terms kept for a leaf (Gradients.Rows) in the first Gradients'
	// storage survive a second sweep that makes its own.
	tm := core.NewTape[*tensor.Dense](tensor.Space{})
	xm := tm.Leaf(xv)
	m := tm.Apply(reduce.MaxOp(nil, false), xm)
	require.NoError(t, tm.Err())
	h1, err := tm.Backward(m)
	require.NoError(t, err)
	h2, err := tm.BackwardSeed(m, tensor.Scalar(3.0))
	require.NoError(t, err)
	for _, c := range []struct {
		g    *core.Gradients[*tensor.Dense]
		want float64
	}{{h1, 0.5}, {h2, 1.5}} {
		rows, v, ok := c.g.Rows(xm)
		require.True(t, ok)
		require.Equal(t, []int{7, 2500}, rows)
		require.Equal(t, []float64{c.want, c.want}, v.Float64s())
	}
}

// TestSmallSweepKeepsForwardSeeds checks that the first Backward of a small
// recycling tape, which collects its dead and kept values in its Gradients'
// storage, keeps the values a forward sweep collected before it: Release still
// treats the forward's tangent seed as live. The forward sweep reaches only
// sum(x), whose scalar tangent the pool would not take, so that the Backward is
// the first to collect dead values.
func TestSmallSweepKeepsForwardSeeds(t *testing.T) {
	sp := &spyRecycler{}
	tp := core.NewTape[*tensor.Dense](sp)
	tp.EnableRecycling()
	// Large enough for the pool (tensor.Space.Reusable).
	xv := tensor.RandN(nil, tensor.Float64, 2048)
	wv := tensor.RandN(nil, tensor.Float64, 2048)
	v := tensor.RandN(nil, tensor.Float64, 2048)
	x, w := tp.Leaf(xv), tp.Leaf(wv)
	sum := reduce.SumOp(nil, false)
	e := tp.Apply(elementwise.ExpOp, w) // exp's output: dead at Release
	out := tp.Apply(elementwise.AddOp, tp.Apply(sum, x), tp.Apply(sum, e))
	require.NoError(t, tp.Err())
	_, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: v})
	require.NoError(t, err)
	g, err := tp.Backward(out)
	require.NoError(t, err)
	gw, ok := g.Of(w)
	require.True(t, ok)
	tp.Release(gw)
	require.Equal(t, 1, sp.calls, "exp's output is dead: Release hands it to the Recycler")
	require.Contains(t, sp.live, v, "the forward's tangent seed stays live")
	require.NotContains(t, sp.dead, v)
}

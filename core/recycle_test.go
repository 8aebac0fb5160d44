package core_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// spyRecycler is tensor's Space with Recycle replaced by a record of its arguments.
type spyRecycler struct {
	tensor.Space
	calls      int
	dead, live []*tensor.Dense
}

func (s *spyRecycler) Recycle(dead, live []*tensor.Dense) {
	s.calls++
	s.dead, s.live = dead, live
}

func TestReleaseSortsValues(t *testing.T) {
	sp := &spyRecycler{}
	tp := core.NewTape[*tensor.Dense](sp)
	tp.EnableRecycling()
	// Large enough for the pool (tensor.Space.Reusable): smaller values are never
	// collected at all.
	xv := tensor.RandN(nil, tensor.Float64, 2048)
	cv := tensor.RandN(nil, tensor.Float64, 2048)
	x, c := tp.Leaf(xv), tp.Constant(cv)
	s := tp.Apply(elementwise.SinOp, x)    // read below: kept
	m := tp.Apply(elementwise.MulOp, s, c) // reused
	var ev *tensor.Dense
	e := tp.Apply(capture{elementwise.ExpOp, &ev}, m) // reused
	out := tp.Apply(reduce.SumOp(nil, false), e)      // a linear rule: not vouched for
	sv, err := tp.Value(s)
	require.NoError(t, err)
	g, err := tp.Backward(out)
	require.NoError(t, err)
	gx, ok := g.Of(x)
	require.True(t, ok)
	mv, _ := tp.Value(m) // read by the caller too: kept from now on
	tp.Release(gx)
	require.Equal(t, 1, sp.calls)

	in := func(list []*tensor.Dense, v *tensor.Dense) bool { return slices.Contains(list, v) }
	// Recycle leaves whatever overlaps a live value, so a value may be both (the
	// gradient is a contribution the sweep collected, and kept by the caller).
	for _, v := range []*tensor.Dense{xv, cv, sv, mv, gx} {
		require.True(t, in(sp.live, v), "live")
	}
	require.True(t, in(sp.dead, ev), "exp's output is reused")
	require.False(t, in(sp.live, ev))
	_, err = tp.Value(x)
	require.ErrorIs(t, err, cr.ErrGraphFreed, "Release frees the tape")
}

// capture is op with its output kept in *v: a way to see a value without Value,
// which would mark it as read by the caller.
type capture struct {
	cr.Op[*tensor.Dense]
	v **tensor.Dense
}

func (c capture) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	r, err := c.Op.Apply(in, x, y)
	*c.v = y[0]
	return r, err
}

func TestReleaseWithoutRecyclingOrWithHooks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		enable bool
		hook   bool
	}{{"not enabled", false, false}, {"hooks", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			sp := &spyRecycler{}
			tp := core.NewTape[*tensor.Dense](sp)
			if tc.enable {
				tp.EnableRecycling()
			}
			x := tp.Leaf(tensor.RandN(nil, tensor.Float64, 4))
			y := tp.Apply(elementwise.SinOp, x)
			if tc.hook {
				require.NoError(t, tp.AddHook(y, func(v *tensor.Dense) (*tensor.Dense, error) { return v, nil }))
			}
			_, err := tp.Backward(tp.Apply(reduce.SumOp(nil, false), y))
			require.NoError(t, err)
			tp.Release()
			require.Zero(t, sp.calls)
		})
	}
}

package core_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// peakRule wraps a rule and, at each pullback call, records the number of the
// tracker's rules alive: the engine's memory for intermediates at that moment.
type peakRule struct {
	cr.Rule[float64]
	tr   *tracker
	peak *int
}

func (r peakRule) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	*r.peak = max(*r.peak, r.tr.live())
	return r.Rule.Pullback(ybar, has, dst)
}

// chainModel is u <- tsin(u * w), steps times, from x.
type chainModel struct {
	tr    tracker
	peak  int
	steps int
	seg   int // steps per checkpoint; 0 for none
}

func (m *chainModel) block(tp *core.Tape[float64], u, w cr.NodeID, n int) cr.NodeID {
	op := m.tr.op()
	probe := cr.OpFunc[float64]{OpName: "tsin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		y := make([]float64, 1)
		r, err := op.Apply(in, x, y)
		return y[0], peakRule{Rule: r, tr: &m.tr, peak: &m.peak}, err
	}}
	for range n {
		u = tp.Apply(probe, tp.Apply(mulOp, u, w))
	}
	return u
}

func (m *chainModel) record(tp *core.Tape[float64], x, w cr.NodeID) cr.NodeID {
	if m.seg == 0 {
		return m.block(tp, x, w, m.steps)
	}
	u := x
	for range m.steps / m.seg {
		u = tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
			return m.block(sub, in[0], in[1], m.seg)
		}, u, w)
	}
	return u
}

// Forward and PullbackWithTangents forward to the wrapped rule, so that
// peakRule keeps its second-order rules (and measures during the second-order sweep).
func (r peakRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	return r.Rule.(cr.ForwardRule[float64]).Forward(tan, ydot, has)
}

func (r peakRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	*r.peak = max(*r.peak, r.tr.live())
	return r.Rule.(cr.SecondOrderRule[float64]).PullbackWithTangents(a, dst)
}

type chainResult struct {
	y, gx, gw, hx, hw        float64
	fwdApplies, bwdApplies   int
	hvpApplies               int
	peakBackward, peakSecond int
}

func runChain(t *testing.T, steps, seg int) chainResult {
	m := &chainModel{steps: steps, seg: seg}
	tp := newTape()
	x, w := tp.Leaf(0.4), tp.Leaf(1.3)
	y := m.record(tp, x, w)
	require.NoError(t, tp.Err())
	var r chainResult
	r.y, _ = tp.Value(y)
	r.fwdApplies = m.tr.applies

	g, err := tp.Backward(y)
	require.NoError(t, err)
	r.gx, _ = g.Of(x)
	r.gw, _ = g.Of(w)
	r.bwdApplies, r.peakBackward = m.tr.applies-r.fwdApplies, m.peak

	m.peak = 0
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 0.3, w: -0.7})
	require.NoError(t, err)
	_, hv, err := tp.BackwardWithTangents(y, tan)
	require.NoError(t, err)
	r.hx, _ = hv.Of(x)
	r.hw, _ = hv.Of(w)
	r.hvpApplies, r.peakSecond = m.tr.applies-r.fwdApplies-r.bwdApplies, m.peak
	runtime.KeepAlive(tp)
	return r
}

func TestCheckpointRecomputesAndSavesMemory(t *testing.T) {
	const steps, seg = 32, 4
	plain := runChain(t, steps, 0)
	ck := runChain(t, steps, seg)
	t.Logf("plain %+v\ncheckpointed %+v", plain, ck)

	assert.Equal(t, plain.y, ck.y)
	assert.Equal(t, plain.gx, ck.gx, "a chain's gradient is computed in the same order")
	assert.InDelta(t, plain.gw, ck.gw, 1e-14*math.Abs(plain.gw), "w's contributions are summed per segment")
	assert.InDelta(t, plain.hx, ck.hx, 1e-13*math.Abs(plain.hx))
	assert.InDelta(t, plain.hw, ck.hw, 1e-13*math.Abs(plain.hw))

	assert.Equal(t, steps, plain.fwdApplies)
	assert.Zero(t, plain.bwdApplies+plain.hvpApplies, "the plain tape never recomputes")
	assert.Equal(t, steps, ck.fwdApplies, "the forward pass runs each op once")
	assert.Equal(t, steps, ck.bwdApplies, "the reverse sweep recomputes each op once")
	assert.Equal(t, 2*steps, ck.hvpApplies, "forward and second-order sweeps recompute each op once each")

	assert.Equal(t, steps, plain.peakBackward, "the plain tape holds every intermediate")
	assert.Equal(t, steps, plain.peakSecond)
	assert.LessOrEqual(t, ck.peakBackward, seg, "one segment's intermediates at a time")
	assert.LessOrEqual(t, ck.peakSecond, seg)
	assert.Positive(t, ck.peakBackward)
}

func TestCheckpointNestedAndConstants(t *testing.T) {
	// f(x, c) = sin(sin(x) * c) with the inner sin in a nested checkpoint and c a
	// constant: df/dx = cos(sin(x) c) cos(x) c.
	x0, c0 := 0.8, 1.7
	tp := newTape()
	x, c := tp.Leaf(x0), tp.Constant(c0)
	y := tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
		s := sub.Checkpoint(func(sub2 *core.Tape[float64], in2 []cr.NodeID) cr.NodeID {
			return sub2.Apply(sinOp, in2[0])
		}, in[0])
		return sub.Apply(sinOp, sub.Apply(mulOp, s, in[1]))
	}, x, c)
	require.NoError(t, tp.Err())
	name, _ := tp.OpName(y)
	assert.Equal(t, core.CheckpointName, name)
	g, err := tp.Backward(y)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	u := math.Sin(x0) * c0
	assert.InDelta(t, math.Cos(u)*math.Cos(x0)*c0, gx, 1e-15)
	_, ok := g.Of(c)
	assert.False(t, ok)

	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	require.NoError(t, err)
	yd, _ := tan.Of(y)
	assert.InDelta(t, gx, yd, 1e-15)
	_, hv, err := tp.BackwardWithTangents(y, tan)
	require.NoError(t, err)
	h, _ := hv.Of(x)
	// d/dx [cos(u) cos(x) c] = -sin(u) (cos(x) c)^2 - cos(u) sin(x) c
	assert.InDelta(t, -math.Sin(u)*math.Pow(math.Cos(x0)*c0, 2)-math.Cos(u)*math.Sin(x0)*c0, h, 1e-14)
}

func TestCheckpointErrors(t *testing.T) {
	t.Run("own leaves", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		y := tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
			return sub.Apply(mulOp, in[0], sub.Leaf(2))
		}, x)
		assert.False(t, y.Valid())
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
		assert.ErrorContains(t, tp.Err(), "checkpoint")
	})
	t.Run("inner error is sticky", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
			return sub.Apply(sinOp, 0)
		}, x)
		assert.ErrorIs(t, tp.Err(), cr.ErrMissingNode)
	})
	t.Run("foreign input", func(t *testing.T) {
		tp := newTape()
		tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID { return in[0] }, newTape().Leaf(1))
		assert.ErrorIs(t, tp.Err(), cr.ErrMissingNode)
	})
	t.Run("no grad", func(t *testing.T) {
		var tr tracker
		tp := newTape()
		x := tp.Leaf(1)
		var y cr.NodeID
		tp.NoGrad(func() {
			y = tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID { return sub.Apply(tr.op(), in[0]) }, x)
		})
		assert.False(t, tp.RequiresGrad(y))
		v, _ := tp.Value(y)
		assert.Equal(t, math.Sin(1), v)
	})
}

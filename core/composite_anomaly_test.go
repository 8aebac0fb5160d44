package core_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// Anomaly mode reaches into a composite op: the report names the composite, the
// inner op that made the NaN or infinity, and where the body recorded it.
func TestAnomalyInsideComposite(t *testing.T) {
	for _, opts := range [][]core.CompositeOption{nil, {core.Recompute()}} {
		var site string
		sqrtComp := core.Composite("sqrtcomp", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
			var s cr.NodeID
			s, site = t.Apply(sqrtOp, x[0]), here()
			return []cr.NodeID{t.Apply(sinOp, s)}
		}, opts...)
		// sqrt at 0: a finite value, an infinite cotangent.
		tp := anomalyTape(t)
		x := tp.Leaf(0)
		y, outer := tp.Apply(sqrtComp, x), here()
		require.NoError(t, tp.Err())
		_, err := tp.Backward(y)
		require.ErrorIs(t, err, cr.ErrNonFinite)
		var oe *cr.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "sqrtcomp", oe.Op, "the outer error names the composite")
		assert.Contains(t, err.Error(), "sqrt was recorded at "+site, "and the inner op, with its site")
		assert.Contains(t, err.Error(), outer, "and where the composite was applied")

		_, err = tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
		require.ErrorIs(t, err, cr.ErrNonFinite)
		assert.Contains(t, err.Error(), "sqrtcomp")
		assert.Contains(t, err.Error(), "sqrt was recorded at "+site)
		assert.Contains(t, err.Error(), "sqrtcomp was recorded at "+outer)

		// A NaN value: log at -1, named at recording.
		logComp := core.Composite("logcomp", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
			var l cr.NodeID
			l, site = t.Apply(logOp, x[0]), here()
			return []cr.NodeID{t.Apply(sinOp, l)}
		}, opts...)
		tp = anomalyTape(t)
		_, outer = tp.Apply(logComp, tp.Leaf(-1)), here()
		err = tp.Err()
		require.ErrorIs(t, err, cr.ErrNonFinite)
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "logcomp", oe.Op)
		assert.Contains(t, err.Error(), "log was recorded at "+site)
		assert.Contains(t, err.Error(), outer[len(outer)-len("composite_anomaly_test.go:00"):], "the composite's own site")

		// Off, the composite records NaN silently.
		tp = newTape()
		v, _ := tp.Value(tp.Apply(logComp, tp.Leaf(-1)))
		require.NoError(t, tp.Err())
		assert.True(t, math.IsNaN(v))
	}
}

// A multi-output composite's inner tape also checks for anomalies.
func TestAnomalyInsideCompositeMulti(t *testing.T) {
	var site string
	mc := core.Composite("logsin", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		var l cr.NodeID
		l, site = t.Apply(logOp, x[0]), here()
		return []cr.NodeID{l, t.Apply(sinOp, x[0])}
	}, core.Outputs(2))
	tp := anomalyTape(t)
	tp.ApplyMulti(mc, tp.Leaf(-1))
	require.ErrorIs(t, tp.Err(), cr.ErrNonFinite)
	assert.Contains(t, tp.Err().Error(), "logsin")
	assert.Contains(t, tp.Err().Error(), "log was recorded at "+site)
}

// A registry override on the outer tape applies inside a composite op too.
func TestRegistryOverrideInsideComposite(t *testing.T) {
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "sin", Arity: 1}))
	require.NoError(t, reg.SetOverride("sin", func(op cr.Op[float64]) cr.Op[float64] {
		return cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
			y := make([]float64, 1)
			_, err := op.Apply(in, x, y)
			return y[0], &unaryRule{in: [1]cr.NodeID{in[0]}, d1: 2 * math.Cos(x[0])}, err
		}}
	}))
	comp := core.Composite("sincomp", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(sinOp, x[0])}
	})
	multi := core.Composite("sincomp2", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(sinOp, x[0])}
	}, core.Outputs(1))
	for _, rec := range []func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID{
		func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.Apply(comp, x) },
		func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.ApplyMulti(multi, x)[0] },
	} {
		tp := newTape().UseRegistry(reg)
		x := tp.Leaf(0.5)
		g, err := tp.Backward(rec(tp, x))
		require.NoError(t, err)
		got, _ := g.Of(x)
		assert.InDelta(t, 2*math.Cos(0.5), got, 1e-15, "the override's pullback")
	}
}

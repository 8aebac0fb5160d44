package core_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

func newTape() *core.Tape[float64] { return core.NewTape[float64](cr.Float64Space{}) }

func TestChainOfMillionNodes(t *testing.T) {
	const n = 1_000_000
	tp := newTape()
	x := tp.Leaf(0.3)
	y := x
	want, v := 1.0, 0.3
	for range n {
		want *= math.Cos(v)
		v = math.Sin(v)
		y = tp.Apply(sinOp, y)
	}
	require.NoError(t, tp.Err())
	g, err := tp.Backward(y)
	require.NoError(t, err)
	got, ok := g.Of(x)
	require.True(t, ok)
	assert.InDelta(t, want, got, 1e-12*math.Abs(want))
}

func TestDiamondAccumulates(t *testing.T) {
	// y = sin(x) * x^3: dy/dx = cos(x) x^3 + 3 x^2 sin(x)
	tests := []struct {
		name string
		x    float64
	}{{"positive", 0.7}, {"negative", -1.3}, {"zero", 0}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTape()
			x := tp.Leaf(tc.x)
			y := tp.Apply(mulOp, tp.Apply(sinOp, x), tp.Apply(cubeOp, x))
			g, err := tp.Backward(y)
			require.NoError(t, err)
			got, _ := g.Of(x)
			want := math.Cos(tc.x)*math.Pow(tc.x, 3) + 3*tc.x*tc.x*math.Sin(tc.x)
			assert.InDelta(t, want, got, 1e-14)
		})
	}
}

func TestSharedInputNamedTwice(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(1.5)
	y := tp.Apply(mulOp, x, x) // x^2
	g, err := tp.Backward(y)
	require.NoError(t, err)
	got, _ := g.Of(x)
	assert.Equal(t, 3.0, got)
}

// countingRule counts pullback calls.
type countingRule struct {
	in    [1]cr.NodeID
	calls *int
}

func (r *countingRule) Inputs() []cr.NodeID { return r.in[:] }
func (r *countingRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	*r.calls++
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: ybar[0]}), nil
}

func TestUnreachableAndConstantNodesSkipped(t *testing.T) {
	tp := newTape()
	calls := 0
	x := tp.Leaf(2)
	c := tp.Constant(5)
	xv, _ := tp.Value(x)
	unused := tp.Record("unused", xv, &countingRule{in: [1]cr.NodeID{x}, calls: &calls})
	cv, _ := tp.Value(c)
	fromConst := tp.Record("fromconst", cv, &countingRule{in: [1]cr.NodeID{c}, calls: &calls})
	y := tp.Apply(mulOp, x, fromConst) // 5x
	require.NoError(t, tp.Err())
	g, err := tp.Backward(y, core.AllNodes())
	require.NoError(t, err)
	assert.Zero(t, calls, "pullbacks of nodes that are unreachable or depend on no leaf must not run")
	got, _ := g.Of(x)
	assert.Equal(t, 5.0, got)
	for _, id := range []cr.NodeID{unused, c, fromConst} {
		_, ok := g.Of(id)
		assert.False(t, ok, "node %v", id)
	}
	assert.False(t, tp.RequiresGrad(fromConst))
}

func TestDenseAndSparseAgree(t *testing.T) {
	tp := newTape()
	x, z := tp.Leaf(0.4), tp.Leaf(-0.9)
	a := tp.Apply(sinOp, x)
	b := tp.Apply(mulOp, a, z)
	y := tp.Apply(cubeOp, b)
	for _, opts := range [][]core.BackwardOption{nil, {core.AllNodes()}} {
		g, err := tp.Backward(y, opts...)
		require.NoError(t, err)
		m := g.Map()
		dense, err := g.Dense(false)
		require.NoError(t, err)
		require.Len(t, dense, tp.Len())
		assert.Equal(t, len(m), g.Len())
		for i, v := range dense {
			id := cr.NewNodeID(x.Tape(), i)
			mv, ok := m[id]
			if ok {
				assert.Equal(t, mv, v)
			} else {
				assert.Zero(t, v)
			}
		}
		filled, err := g.Dense(true)
		require.NoError(t, err)
		assert.Len(t, filled, tp.Len())
	}
	g, err := tp.Backward(y, core.AllNodes())
	require.NoError(t, err)
	assert.Len(t, g.Map(), 5, "all nodes are reached")
	g, err = tp.Backward(y)
	require.NoError(t, err)
	assert.Len(t, g.Map(), 2, "only the leaves are kept by default")
}

func TestBackwardTwiceSameAnswer(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(0.8)
	y := tp.Apply(mulOp, tp.Apply(sinOp, x), tp.Apply(sinOp, x))
	g1, err := tp.Backward(y)
	require.NoError(t, err)
	g2, err := tp.Backward(y)
	require.NoError(t, err)
	a, _ := g1.Of(x)
	b, _ := g2.Of(x)
	assert.Equal(t, a, b)
	assert.InDelta(t, 2*math.Sin(0.8)*math.Cos(0.8), a, 1e-15)
}

func TestErrors(t *testing.T) {
	t.Run("freed graph", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		y := tp.Apply(sinOp, x)
		tp.Free()
		_, err := tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrGraphFreed)
		_, err = tp.Value(x)
		assert.ErrorIs(t, err, cr.ErrGraphFreed)
		assert.False(t, tp.Apply(sinOp, x).Valid())
		assert.ErrorIs(t, tp.Err(), cr.ErrGraphFreed)
	})
	t.Run("release after backward", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		y := tp.Apply(sinOp, x)
		g, err := tp.Backward(y, core.ReleaseGraph())
		require.NoError(t, err)
		got, _ := g.Of(x)
		assert.InDelta(t, math.Cos(1), got, 1e-15)
		_, err = tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrGraphFreed)
		_, err = g.Dense(true)
		assert.ErrorIs(t, err, cr.ErrGraphFreed)
	})
	t.Run("foreign node", func(t *testing.T) {
		a, b := newTape(), newTape()
		xa := a.Leaf(1)
		b.Leaf(2)
		assert.False(t, b.Apply(sinOp, xa).Valid())
		assert.ErrorIs(t, b.Err(), cr.ErrMissingNode)
		var oe *cr.OpError
		require.ErrorAs(t, b.Err(), &oe)
		assert.Equal(t, "sin", oe.Op)
		_, err := b.Backward(xa)
		assert.ErrorIs(t, err, cr.ErrMissingNode)
		_, err = a.Backward(0)
		assert.ErrorIs(t, err, cr.ErrMissingNode)
	})
	t.Run("sticky first error", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		boom := errors.New("boom")
		bad := cr.OpFunc[float64]{OpName: "bad", F: func([]cr.NodeID, []float64) (float64, cr.Rule[float64], error) {
			return 0, nil, boom
		}}
		y := tp.Apply(bad, x)
		z := tp.Apply(sinOp, y) // chained after the failure: does nothing
		assert.False(t, z.Valid())
		assert.ErrorIs(t, tp.Err(), boom)
		_, err := tp.Backward(z)
		assert.ErrorIs(t, err, boom)
		assert.ErrorContains(t, err, "bad")
	})
	t.Run("contribution to a non-input", func(t *testing.T) {
		tp := newTape()
		x, z := tp.Leaf(1), tp.Leaf(2)
		calls := 0
		y := tp.Record("liar", 1, &liarRule{in: [1]cr.NodeID{x}, other: z, calls: &calls})
		_, err := tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrMissingNode)
		assert.ErrorContains(t, err, "liar")
	})
	t.Run("nil rule", func(t *testing.T) {
		tp := newTape()
		tp.Record("nothing", 1, nil)
		assert.ErrorIs(t, tp.Err(), cr.ErrNoRule)
	})
}

type liarRule struct {
	in    [1]cr.NodeID
	other cr.NodeID
	calls *int
}

func (r *liarRule) Inputs() []cr.NodeID { return r.in[:] }
func (r *liarRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.other, Value: ybar[0]}), nil
}

func TestForwardTangents(t *testing.T) {
	// f(x, z) = sin(x^3 * z): df = cos(x^3 z) (3 x^2 z xdot + x^3 zdot)
	x0, z0, xd, zd := 0.9, -0.6, 0.3, 1.7
	tp := newTape()
	x, z := tp.Leaf(x0), tp.Leaf(z0)
	y := tp.Apply(sinOp, tp.Apply(mulOp, tp.Apply(cubeOp, x), z))
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: xd, z: zd})
	require.NoError(t, err)
	got, ok := tan.Of(y)
	require.True(t, ok)
	u := x0 * x0 * x0 * z0
	assert.InDelta(t, math.Cos(u)*(3*x0*x0*z0*xd+x0*x0*x0*zd), got, 1e-14)

	only, err := tp.ForwardTangents(map[cr.NodeID]float64{z: 1})
	require.NoError(t, err)
	_, ok = only.Of(tp.Apply(cubeOp, x))
	assert.False(t, ok, "a node that depends on no seeded leaf has a zero (absent) tangent")

	t.Run("missing forward rule", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		tp.Apply(sinNoTangents, x)
		_, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
		assert.ErrorIs(t, err, cr.ErrNoRule)
		assert.ErrorContains(t, err, "sin1")
		_, err = tp.ForwardTangents(nil)
		assert.NoError(t, err, "no tangent reaches the op")
	})
	t.Run("seed on a non-leaf", func(t *testing.T) {
		_, err := tp.ForwardTangents(map[cr.NodeID]float64{y: 1})
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
}

func TestSecondOrderSweep(t *testing.T) {
	// f(x, z) = sin(x^3 * z) with u = x^3 z:
	//   grad = cos(u) (3x^2 z, x^3)
	//   H = -sin(u) g g^T + cos(u) [[6 x z, 3x^2], [3x^2, 0]]  with g = (3x^2 z, x^3)
	x0, z0 := 0.9, -0.6
	v := [2]float64{0.3, 1.7}
	tp := newTape()
	x, z := tp.Leaf(x0), tp.Leaf(z0)
	y := tp.Apply(sinOp, tp.Apply(mulOp, tp.Apply(cubeOp, x), z))
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: v[0], z: v[1]})
	require.NoError(t, err)
	grad, hv, err := tp.BackwardWithTangents(y, tan)
	require.NoError(t, err)

	u := x0 * x0 * x0 * z0
	g := [2]float64{3 * x0 * x0 * z0, x0 * x0 * x0}
	H := [2][2]float64{
		{-math.Sin(u)*g[0]*g[0] + math.Cos(u)*6*x0*z0, -math.Sin(u)*g[0]*g[1] + math.Cos(u)*3*x0*x0},
		{-math.Sin(u)*g[1]*g[0] + math.Cos(u)*3*x0*x0, -math.Sin(u) * g[1] * g[1]},
	}
	for k, id := range []cr.NodeID{x, z} {
		gk, _ := grad.Of(id)
		assert.InDelta(t, math.Cos(u)*g[k], gk, 1e-14)
		hk, ok := hv.Of(id)
		require.True(t, ok)
		assert.InDelta(t, H[k][0]*v[0]+H[k][1]*v[1], hk, 1e-13)
	}

	t.Run("missing second-order rule", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(1)
		y := tp.Apply(sinNoTangents, x)
		tan, err := tp.ForwardTangents(nil)
		require.NoError(t, err)
		_, _, err = tp.BackwardWithTangents(y, tan)
		require.NoError(t, err, "no tangent reaches the op: the plain pullback is exact")

		tp2 := newTape()
		x2 := tp2.Leaf(1)
		y2 := tp2.Apply(sinNoTangents, tp2.Apply(sinOp, x2))
		tan2, err := tp2.ForwardTangents(nil)
		require.NoError(t, err)
		_, _, err = tp2.BackwardWithTangentsSeed(y2, cr.Dual[float64]{Value: 1, Tangent: 1, HasTangent: true}, tan2)
		assert.ErrorIs(t, err, cr.ErrHVPNotSupported)
		assert.ErrorContains(t, err, "sin1")
	})
	t.Run("stale tangents", func(t *testing.T) {
		y2 := tp.Apply(sinOp, y)
		_, _, err := tp.BackwardWithTangents(y2, tan)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
}

func TestRegistryOverride(t *testing.T) {
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "sin", Arity: 1}))
	// A custom gradient: same primal, pullback scaled by 2.
	require.NoError(t, reg.SetOverride("sin", func(op cr.Op[float64]) cr.Op[float64] {
		return cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
			y := make([]float64, 1)
			_, err := op.Apply(in, x, y)
			return y[0], &unaryRule{in: [1]cr.NodeID{in[0]}, d1: 2 * math.Cos(x[0])}, err
		}}
	}))
	tp := newTape().UseRegistry(reg)
	x := tp.Leaf(0.5)
	g, err := tp.Backward(tp.Apply(sinOp, x))
	require.NoError(t, err)
	got, _ := g.Of(x)
	assert.InDelta(t, 2*math.Cos(0.5), got, 1e-15)
}

// BenchmarkScalarChain records and differentiates the peers' scalar workload,
// x <- sin(1.0001 x + 0.0001), as a chain of 100,002 ops (mul, add, sin), and
// reports the cost per recorded op.
//
// It runs on one goroutine, yet at GOMAXPROCS=2 on a loaded machine (another
// process busy on one core) it was 1.24x slower than at 1. The cause is the
// runtime's, not ours: each call allocates 8.3 MB (1.1-1.5 collections), and each
// collection stops the world twice, which waits until every P has stopped; at 2
// Ps the other P's thread (the collector's mark worker, the sweeper, or an M
// looking for work) may be waiting for a CPU the busy process holds. With
// GODEBUG=gctrace=1 (2026-11-28, load average 9-18 from other processes, with
// and without a busy loop pinned to one core) the two pauses of a collection
// took 0.39-1.9 ms (median per collection) at 2 Ps against 0.013-0.023 ms at 1,
// 1.8-5 ms per call, and the process used 9.6-10.6 ms of CPU per call against
// 8.6-9.3 ms at 1 P (the background mark workers). A single-threaded program on
// a loaded machine avoids it with GOMAXPROCS=1.
func BenchmarkScalarChain(b *testing.B) {
	const steps = 33334
	scale, shift := scaleOp(1.0001), shiftOp(0.0001)
	b.ReportAllocs()
	for b.Loop() {
		tp := newTape()
		x := tp.Leaf(0.5)
		y := x
		for range steps {
			y = tp.Apply(sinOp, tp.Apply(shift, tp.Apply(scale, y)))
		}
		if _, err := tp.Backward(y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(3*steps), "ns/node")
}

package core_test

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// A scalar op set whose pullbacks are written with its own ops (core.Define), so
// that every derivative is recorded and can be differentiated again.

func mulD() cr.Op[float64] {
	return core.Define(core.Def[float64]{Name: "mul", Space: f64, Arity: 2,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[1]}, nil },
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mulD(), ybar[0], x[1]), t.Apply(mulD(), ybar[0], x[0])}
		}})
}

func negD() cr.Op[float64] {
	return core.Define(core.Def[float64]{Name: "neg", Space: f64, Arity: 1,
		Primal: func(x []float64) ([]float64, error) { return []float64{-x[0]}, nil },
		Pullback: func(t *core.Tape[float64], _, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(negD(), ybar[0])}
		}})
}

// trigD is sin (cos false) or cos: sin' = cos, cos' = -sin.
func trigD(cos bool) cr.Op[float64] {
	name := "sin"
	if cos {
		name = "cos"
	}
	return core.Define(core.Def[float64]{Name: name, Space: f64, Arity: 1,
		Primal: func(x []float64) ([]float64, error) {
			if cos {
				return []float64{math.Cos(x[0])}, nil
			}
			return []float64{math.Sin(x[0])}, nil
		},
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			d := t.Apply(trigD(!cos), x[0])
			if cos {
				d = t.Apply(negD(), d)
			}
			return []cr.NodeID{t.Apply(mulD(), d, ybar[0])}
		}})
}

// derivatives returns f(x0) and its first n derivatives, each by a recorded
// backward sweep of the one before.
func derivatives(t *testing.T, f func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID, x0 float64, n int) []float64 {
	t.Helper()
	tp := newTape()
	x := tp.Leaf(x0)
	y := f(tp, x)
	out := []float64{must(tp.Value(y))}
	for range n {
		g, err := tp.GradGraph(y, x)
		require.NoError(t, err)
		y = g[0]
		out = append(out, must(tp.Value(y)))
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestGradGraphReachesAnyOrder(t *testing.T) {
	const x0 = 0.7
	cube := func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID {
		return tp.Apply(mulD(), tp.Apply(mulD(), x, x), x)
	}
	d := derivatives(t, cube, x0, 4)
	want := []float64{x0 * x0 * x0, 3 * x0 * x0, 6 * x0, 6, 0}
	for k := range want {
		require.InDelta(t, want[k], d[k], 1e-14, "derivative %d of x^3", k)
	}
	sin := func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.Apply(trigD(false), x) }
	d = derivatives(t, sin, x0, 5)
	s, c := math.Sincos(x0)
	want = []float64{s, c, -s, -c, s, c}
	for k := range want {
		require.InDelta(t, want[k], d[k], 1e-15, "derivative %d of sin", k)
	}
}

// The recorded gradient is an ordinary node: the plain sweeps differentiate it, and
// agree with a second recorded sweep.
func TestGradGraphFeedsEverySweep(t *testing.T) {
	const x0, y0 = 0.4, -1.3
	tp := newTape()
	x, y := tp.Leaf(x0), tp.Leaf(y0)
	// f = sin(x y) x
	f := tp.Apply(mulD(), tp.Apply(trigD(false), tp.Apply(mulD(), x, y)), x)
	g, err := tp.GradGraph(f, x, y)
	require.NoError(t, err)
	s, c := math.Sincos(x0 * y0)
	require.InDelta(t, c*y0*x0+s, must(tp.Value(g[0])), 1e-15)
	require.InDelta(t, c*x0*x0, must(tp.Value(g[1])), 1e-15)

	// d/dx of g_x by the plain reverse sweep, by a recorded one, and forward.
	wantXX := -s*y0*y0*x0 + 2*c*y0
	gr, err := tp.Backward(g[0])
	require.NoError(t, err)
	require.InDelta(t, wantXX, must2(gr.Of(x)), 1e-14)
	h, err := tp.GradGraph(g[0], x)
	require.NoError(t, err)
	require.InDelta(t, wantXX, must(tp.Value(h[0])), 1e-14)
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	require.NoError(t, err)
	require.InDelta(t, wantXX, must2(tan.Of(g[0])), 1e-14)
	// Forward over reverse through the recorded second derivative: the third
	// derivative and, as its tangent, the fourth.
	gh, hv, err := tp.BackwardWithTangents(h[0], tan)
	require.NoError(t, err)
	wantXXX := -c*y0*y0*y0*x0 - 3*s*y0*y0
	require.InDelta(t, wantXXX, must2(gh.Of(x)), 1e-13)
	wantXXXX := s*y0*y0*y0*y0*x0 - 4*c*y0*y0*y0
	require.InDelta(t, wantXXXX, must2(hv.Of(x)), 1e-13)
}

func must2(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

func TestGradGraphErrors(t *testing.T) {
	// An op without a recorded pullback: a typed error naming it and the order.
	tp := newTape()
	x := tp.Leaf(0.5)
	y := tp.Apply(sinOp, x) // hand-written first- and second-order rules only
	_, err := tp.GradGraph(y, x)
	var oe *cr.OrderError
	require.ErrorAs(t, err, &oe)
	require.ErrorIs(t, err, cr.ErrOrderNotSupported)
	require.Equal(t, "sin", oe.Op)
	require.Equal(t, 2, oe.Order)

	// One recorded level deeper, the order is 3.
	tp = newTape()
	x = tp.Leaf(0.5)
	sq := core.Define(core.Def[float64]{Name: "square", Space: f64, Arity: 1,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[0]}, nil },
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mulOp, t.Apply(scaleOp(2), x[0]), ybar[0])}
		}})
	g, err := tp.GradGraph(tp.Apply(sq, x), x)
	require.NoError(t, err)
	require.InDelta(t, 1.0, must(tp.Value(g[0])), 1e-15)
	_, err = tp.GradGraph(g[0], x)
	require.ErrorAs(t, err, &oe)
	require.Equal(t, 3, oe.Order)
	require.Contains(t, []string{"mul", "scale"}, oe.Op)

	// A non-scalar output, NodeIDs of another tape, a freed tape.
	tp = newTape()
	other := newTape()
	x = tp.Leaf(1)
	y = tp.Apply(mulD(), x, x)
	_, err = tp.GradGraph(y, other.Leaf(2))
	require.ErrorIs(t, err, cr.ErrMissingNode)
	tp.Free()
	_, err = tp.GradGraph(y, x)
	require.ErrorIs(t, err, cr.ErrGraphFreed)

	// Hooks are not run by a recorded sweep, so they are refused.
	tp = newTape()
	x = tp.Leaf(1)
	y = tp.Apply(mulD(), x, x)
	require.NoError(t, tp.AddHook(y, func(v float64) (float64, error) { return 2 * v, nil }))
	_, err = tp.GradGraph(y, x)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.False(t, errors.Is(err, cr.ErrOrderNotSupported))
}

// Ops the output does not depend on get a zero constant; wrt may be an op node.
func TestGradGraphWrt(t *testing.T) {
	tp := newTape()
	x, z := tp.Leaf(2), tp.Leaf(5)
	u := tp.Apply(mulD(), x, x)
	y := tp.Apply(mulD(), u, x) // x^3, with u = x^2
	g, err := tp.GradGraph(y, x, z, u)
	require.NoError(t, err)
	require.Equal(t, 12.0, must(tp.Value(g[0])))
	require.Equal(t, 0.0, must(tp.Value(g[1])))
	require.Equal(t, 2.0, must(tp.Value(g[2]))) // dy/du = x
}

// A composite op differentiates to any order through its body, also when an input
// is named twice.
func TestGradGraphComposite(t *testing.T) {
	prod := core.Composite("prod", f64, 2, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(trigD(false), t.Apply(mulD(), x[0], x[1]))}
	})
	d := derivatives(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.Apply(prod, x, x) }, 0.9, 3)
	// f = sin(x^2): f' = 2x cos, f'' = 2 cos - 4x^2 sin, f''' = -12 x sin - 8 x^3 cos
	x := 0.9
	s, c := math.Sincos(x * x)
	want := []float64{s, 2 * x * c, 2*c - 4*x*x*s, -12*x*s - 8*x*x*x*c}
	for k := range want {
		require.InDelta(t, want[k], d[k], 1e-13, "derivative %d", k)
	}
}

// BenchmarkGradGraphChain records the gradient of a chain of 10,000 sin ops (a
// defined op whose pullback is cos times the cotangent) on the tape, and reports
// the bytes and time per node of the chain the recorded sweep adds (each step
// records cos, mul and a sweep's bookkeeping).
func BenchmarkGradGraphChain(b *testing.B) {
	const n = 10000
	sin := trigD(false)
	b.ReportAllocs()
	var before, after int
	for b.Loop() {
		b.StopTimer()
		tp := newTape()
		x := tp.Leaf(0.5)
		y := x
		for range n {
			y = tp.Apply(sin, y)
		}
		before = tp.Len()
		b.StartTimer()
		if _, err := tp.GradGraph(y, x); err != nil {
			b.Fatal(err)
		}
		after = tp.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/node")
	b.ReportMetric(float64(after-before)/n, "nodes/node")
}

// TestGradGraphCostsItsSpan checks that a recorded gradient at the end of a long
// tape allocates for the nodes between its inputs and its output, not for the
// whole tape: a loop that takes a gradient at every step (particle, saddle,
// meta-learning) would otherwise be quadratic in its length.
func TestGradGraphCostsItsSpan(t *testing.T) {
	sin := trigD(false)
	bytes := func(prefix int) uint64 {
		tp := core.NewTape[float64](f64)
		y := tp.Leaf(0.1)
		for range prefix {
			y = tp.Apply(sin, y)
		}
		x := tp.Leaf(0.5)
		out := tp.Apply(sin, tp.Apply(sin, x))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := tp.GradGraph(out, x)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		v, err := tp.Value(g[0])
		require.NoError(t, err)
		require.InDelta(t, math.Cos(math.Sin(0.5))*math.Cos(0.5), v, 1e-15)
		return after.TotalAlloc - before.TotalAlloc
	}
	short, long := bytes(10), bytes(200000)
	require.Less(t, long, short+4096, "a gradient after 200000 nodes allocated %d bytes, after 10 nodes %d", long, short)
}

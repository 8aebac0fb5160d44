package hvp_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/internal/race"
	"github.com/chainrules-go/chainrules/tensor"
)

// mlpSet returns the MLP loss of BenchmarkMLP at batch b and widths w, its
// parameters and a direction, in dtype dt.
func mlpSet(t testing.TB, dt tensor.DType, b int, w []int) (hvp.Func, []*tensor.Dense, []*tensor.Dense) {
	X, Y, p := mlpProblem(1, b, w)
	rng := rand.New(rand.NewPCG(3, 3))
	v := make([]*tensor.Dense, len(p))
	for i, pi := range p {
		v[i] = tensor.RandN(rng, tensor.Float64, pi.Shape()...)
	}
	as := func(x *tensor.Dense) *tensor.Dense {
		y, err := tensor.AsType(x, dt)
		require.NoError(t, err)
		return y
	}
	X, Y = as(X), as(Y)
	for i := range p {
		p[i], v[i] = as(p[i]), as(v[i])
	}
	return mlpLoss(X, Y), p, v
}

// floatsOf returns copies of the elements of ts as float64.
func floatsOf(t *testing.T, ts []*tensor.Dense) [][]float64 {
	out := make([][]float64, len(ts))
	for i, d := range ts {
		w, err := tensor.AsType(d, tensor.Float64)
		require.NoError(t, err)
		out[i] = append([]float64(nil), w.Contiguous().Float64s()...)
	}
	return out
}

// Gradient.HVP gives hvp.HVP's results bit for bit, call after call, also when
// the direction is the previous call's product (the power method: v <- H v),
// whose storage it must then not reuse.
func TestGradientHVPMatchesHVP(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			f, p, v := mlpSet(t, dt, 32, []int{64, 64, 32, 4}) // W1 large enough for the pool
			var g hvp.Gradient
			for i := range 3 {
				wantG, wantHV, err := hvp.HVP(f, p, v)
				require.NoError(t, err)
				grad, hv, err := g.HVP(f, p, v)
				require.NoError(t, err)
				require.Equal(t, floatsOf(t, wantG), floatsOf(t, grad), "call %d: gradient", i)
				require.Equal(t, floatsOf(t, wantHV), floatsOf(t, hv), "call %d: H v", i)
			}
			// v <- H v, with the previous product as the direction.
			wantV, gotV := v, v
			for i := range 4 {
				_, wantHV, err := hvp.HVP(f, p, wantV)
				require.NoError(t, err)
				_, hv, err := g.HVP(f, p, gotV)
				require.NoError(t, err)
				require.Equal(t, floatsOf(t, wantHV), floatsOf(t, hv), "power step %d", i)
				require.Equal(t, floatsOf(t, wantV), floatsOf(t, gotV), "power step %d: the direction changed", i)
				wantV, gotV = wantHV, hv
			}
			// Grad and HVP share the Gradient's memory.
			wantG, _, err := hvp.HVP(f, p, v)
			require.NoError(t, err)
			_, grad, err := g.Grad(f, p)
			require.NoError(t, err)
			require.Equal(t, floatsOf(t, wantG), floatsOf(t, grad))
		})
	}
}

// Issue 26: in steady state, a repeated gradient (hvp.Gradient) of the MLP
// (784-256-256-10, batch 256) allocates at most 10% of 7.5 MB per call, and a
// repeated HVP (Gradient.HVP, or the products of one recording written to a flat
// slice, Operator.ApplyFlat) at most 10% of 19 MB, in float64 and float32.
func TestMLPSteadyStateAllocation(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("the MLP at full size; the race detector's sync.Pool drops buffers at random")
	}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			f, p, v := mlpSet(t, dt, 256, []int{784, 256, 256, 10})
			op, err := hvp.NewOperator(f, p)
			require.NoError(t, err)
			l, err := op.Layout()
			require.NoError(t, err)
			vf, dst := make([]float64, l.Dim()), make([]float64, l.Dim())
			require.NoError(t, l.FlattenTo(vf, v))
			var g hvp.Gradient
			for _, tc := range []struct {
				name  string
				limit float64 // bytes per call
				run   func() error
			}{
				{"Gradient.Grad", 0.75e6, func() error { _, _, err := g.Grad(f, p); return err }},
				{"Gradient.HVP", 1.9e6, func() error { _, _, err := g.HVP(f, p, v); return err }},
				{"Operator.ApplyFlat", 1.9e6, func() error { return op.ApplyFlat(dst, vf) }},
			} {
				for range 3 { // fill the pool
					require.NoError(t, tc.run())
				}
				const n = 8
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				for range n {
					require.NoError(t, tc.run())
				}
				runtime.ReadMemStats(&m1)
				perCall := float64(m1.TotalAlloc-m0.TotalAlloc) / n
				t.Logf("%s: %.3f MB per call, %d collections in %d calls", tc.name, perCall/1e6, m1.NumGC-m0.NumGC, n)
				require.LessOrEqual(t, perCall, tc.limit, "%s allocates %.2f MB per call", tc.name, perCall/1e6)
			}
		})
	}
}

// A float32 operator's flat products round the direction into float32 copies
// that go back to the pool after each product: products of different directions,
// one after another, give Apply's results, and the first again at the end (under
// the race detector recycled storage is filled with NaN, so a copy handed back
// while still read would show).
func TestFloat32ApplyFlatRecyclesDirectionCopies(t *testing.T) {
	f, p, _ := mlpSet(t, tensor.Float32, 32, []int{64, 64, 32, 4})
	op, err := hvp.NewOperator(f, p)
	require.NoError(t, err)
	l, err := op.Layout()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	dirs := make([][]float64, 3)
	want := make([][]float64, len(dirs))
	for i := range dirs {
		dirs[i] = make([]float64, l.Dim())
		for k := range dirs[i] {
			dirs[i][k] = float64(float32(rng.NormFloat64()))
		}
		vs, err := l.Unflatten(dirs[i])
		require.NoError(t, err)
		hv, err := op.Apply(vs)
		require.NoError(t, err)
		want[i] = make([]float64, l.Dim())
		require.NoError(t, l.FlattenTo(want[i], hv))
	}
	dst := make([]float64, l.Dim())
	for _, i := range []int{0, 1, 2, 1, 0} {
		require.NoError(t, op.ApplyFlat(dst, dirs[i]))
		require.Equal(t, want[i], dst, "direction %d", i)
	}
}

package hvp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestGradReusesNothingItReturned evaluates a gradient again and again, as an
// optimiser does: each evaluation makes its values in the storage the previous one
// released. What a call returned (the value, the gradients) and what the function
// read with Value must stay as they were; under the race detector released
// storage is filled with NaN, so a value reused too early would show.
func TestGradReusesNothingItReturned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := tensor.RandN(rng, tensor.Float64, 64, 64)
	x := tensor.RandN(rng, tensor.Float64, 128, 64)
	var read []*tensor.Dense
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
		v, err := tp.Value(h) // kept by the caller
		require.NoError(t, err)
		read = append(read, v)
		sq := tp.Apply(ew.MulOp, h, h)
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, sq))
	}
	type result struct{ value, grad, read []float64 }
	var got []result
	var live [][]*tensor.Dense
	for range 4 {
		value, grad, err := hvp.Grad(f, []*tensor.Dense{w})
		require.NoError(t, err)
		got = append(got, result{
			append([]float64(nil), value.Float64s()...),
			append([]float64(nil), grad[0].Float64s()...),
			append([]float64(nil), read[len(read)-1].Float64s()...),
		})
		live = append(live, []*tensor.Dense{value, grad[0], read[len(read)-1]})
	}
	for i, r := range got {
		require.Equal(t, got[0], r, "call %d differs from the first", i)
		require.Equal(t, r.value, live[i][0].Float64s(), "call %d's value changed later", i)
		require.Equal(t, r.grad, live[i][1].Float64s(), "call %d's gradient changed later", i)
		require.Equal(t, r.read, live[i][2].Float64s(), "call %d's read value changed later", i)
	}
}

// TestOperatorReusesOnlyTemporaries applies one recording to several directions,
// as a Krylov solver does, and evaluates HVP again and again: each product makes
// its temporaries in the storage the previous one handed back, and no returned
// product, gradient or flat result may change afterwards.
func TestOperatorReusesOnlyTemporaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := tensor.RandN(rng, tensor.Float64, 48, 48)
	x := tensor.RandN(rng, tensor.Float64, 96, 48)
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.ExpOp, tp.Apply(ew.MulOp, h, h)))
	}
	op, err := hvp.NewOperator(f, []*tensor.Dense{w})
	require.NoError(t, err)
	grad, err := op.Grad()
	require.NoError(t, err)
	want := append([]float64(nil), grad[0].Float64s()...)
	dirs := make([]*tensor.Dense, 4)
	var hvs []*tensor.Dense
	var copies [][]float64
	flat := make([][]float64, len(dirs))
	for i := range dirs {
		dirs[i] = tensor.RandN(rng, tensor.Float64, 48, 48)
		hv, err := op.Apply([]*tensor.Dense{dirs[i]})
		require.NoError(t, err)
		hvs = append(hvs, hv[0])
		copies = append(copies, append([]float64(nil), hv[0].Float64s()...))
		flat[i] = make([]float64, 48*48)
		require.NoError(t, op.ApplyFlat(flat[i], dirs[i].Float64s()))
	}
	for i := range dirs {
		require.Equal(t, copies[i], hvs[i].Float64s(), "product %d changed later", i)
		require.Equal(t, copies[i], flat[i], "flat product %d", i)
		again, err := op.Apply([]*tensor.Dense{dirs[i]})
		require.NoError(t, err)
		require.Equal(t, copies[i], again[0].Float64s(), "product %d again", i)
	}
	require.Equal(t, want, grad[0].Float64s(), "the gradient changed")

	// The one-shot HVP releases its whole recording.
	g1, hv1, err := hvp.HVP(f, []*tensor.Dense{w}, dirs[:1])
	require.NoError(t, err)
	g1c, hv1c := append([]float64(nil), g1[0].Float64s()...), append([]float64(nil), hv1[0].Float64s()...)
	for range 3 {
		g2, hv2, err := hvp.HVP(f, []*tensor.Dense{w}, dirs[:1])
		require.NoError(t, err)
		require.Equal(t, g1c, g2[0].Float64s())
		require.Equal(t, hv1c, hv2[0].Float64s())
	}
	require.Equal(t, g1c, g1[0].Float64s())
	require.Equal(t, hv1c, hv1[0].Float64s())
	require.Equal(t, want, g1c)
	require.Equal(t, copies[0], hv1c)
}

// TestJVPReusesNothingItReturned is TestGradReusesNothingItReturned for JVP, whose
// recording is released with its tangents.
func TestJVPReusesNothingItReturned(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w := tensor.RandN(rng, tensor.Float64, 64, 64)
	v := tensor.RandN(rng, tensor.Float64, 64, 64)
	x := tensor.RandN(rng, tensor.Float64, 128, 64)
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
		return tp.Apply(ew.SinOp, tp.Apply(ew.MulOp, h, h))
	}
	var ys, yds []*tensor.Dense
	var want [2][]float64
	for i := range 4 {
		y, yd, err := hvp.JVP(f, []*tensor.Dense{w}, []*tensor.Dense{v})
		require.NoError(t, err)
		if i == 0 {
			want = [2][]float64{append([]float64(nil), y.Float64s()...), append([]float64(nil), yd.Float64s()...)}
		}
		ys, yds = append(ys, y), append(yds, yd)
	}
	for i := range ys {
		require.Equal(t, want[0], ys[i].Float64s(), "call %d's value", i)
		require.Equal(t, want[1], yds[i].Float64s(), "call %d's tangent", i)
	}
}

// TestGradientReusesItsResults checks Gradient's contract: the results of At are
// right at every call, and the previous call's results are what the next call
// reuses (under the race detector they are filled with NaN when handed back).
func TestGradientReusesItsResults(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := tensor.RandN(rng, tensor.Float64, 64, 64)
	x := tensor.RandN(rng, tensor.Float64, 128, 64)
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(ew.MulOp, h, h)))
	}
	_, want, err := hvp.Grad(f, []*tensor.Dense{w})
	require.NoError(t, err)
	var g hvp.Gradient
	var prev *tensor.Dense
	for i := range 4 {
		value, grad, err := g.Grad(f, []*tensor.Dense{w})
		require.NoError(t, err)
		require.Equal(t, want[0].Float64s(), grad[0].Float64s(), "call %d", i)
		require.Equal(t, 1, value.Size())
		if prev != nil {
			require.NotSame(t, prev, grad[0])
		}
		prev = grad[0]
	}
	// A parameter passed back in as the point is never handed to the pool.
	_, grad, err := g.Grad(f, []*tensor.Dense{w})
	require.NoError(t, err)
	keep := grad[0].Clone()
	_, grad2, err := hvp.WithRegistry(ops.Default()).NewGradient().Grad(f, grad)
	require.NoError(t, err)
	require.NotNil(t, grad2)
	_, grad2, err = g.Grad(f, grad) // the previous gradient is now the point
	require.NoError(t, err)
	require.Equal(t, keep.Float64s(), grad[0].Float64s(), "the point was reused")
	require.NotNil(t, grad2)
}

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

func clip(c float64) core.Hook[float64] {
	return func(v float64) (float64, error) { return max(-c, min(c, v)), nil }
}

func TestHookClipsIntermediateCotangent(t *testing.T) {
	// y = u*u with u = sin(x): ubar = 2u reaches u from two uses; the hook sees the
	// sum and clips it to [-c, c], so dy/dx = clip(2 sin x) cos x.
	const x0, c = 1.1, 0.5
	tp := newTape()
	x := tp.Leaf(x0)
	u := tp.Apply(sinOp, x)
	y := tp.Apply(mulOp, u, u)
	var seen []float64
	require.NoError(t, tp.AddHook(u, func(v float64) (float64, error) { seen = append(seen, v); return v, nil }))
	require.NoError(t, tp.AddHook(u, clip(c)))

	g, err := tp.Backward(y, core.AllNodes())
	require.NoError(t, err)
	assert.Equal(t, []float64{2 * math.Sin(x0)}, seen, "the hook runs once, on the complete cotangent")
	gu, _ := g.Of(u)
	assert.Equal(t, c, gu, "the node's cotangent is the hook's result")
	gx, _ := g.Of(x)
	assert.InDelta(t, c*math.Cos(x0), gx, 1e-15)

	require.NoError(t, tp.RemoveHooks(u))
	g, err = tp.Backward(y)
	require.NoError(t, err)
	gx, _ = g.Of(x)
	assert.InDelta(t, 2*math.Sin(x0)*math.Cos(x0), gx, 1e-15, "without hooks the gradient is the true one")
}

func TestHookOnLeafRunsAfterAccumulation(t *testing.T) {
	// y = x*x + sin(x): the leaf hook sees 2x + cos(x) and scales it by 10.
	const x0 = 0.4
	tp := newTape()
	x := tp.Leaf(x0)
	y := tp.Apply(mulOp, tp.Apply(mulOp, x, x), tp.Apply(shiftOp(1), tp.Apply(sinOp, x)))
	// y = x^2 (sin x + 1): dy/dx = 2x (sin x + 1) + x^2 cos x.
	want := 2*x0*(math.Sin(x0)+1) + x0*x0*math.Cos(x0)
	var seen []float64
	require.NoError(t, tp.AddHook(x, func(v float64) (float64, error) { seen = append(seen, v); return 10 * v, nil }))
	g, err := tp.Backward(y)
	require.NoError(t, err)
	require.Len(t, seen, 1)
	assert.InDelta(t, want, seen[0], 1e-15)
	gx, _ := g.Of(x)
	assert.InDelta(t, 10*want, gx, 1e-14)
}

func TestHookErrors(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(1)
	y := tp.Apply(sinOp, x)
	boom := errors.New("boom")
	require.NoError(t, tp.AddHook(y, func(float64) (float64, error) { return 0, boom }))
	_, err := tp.Backward(y)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "sin at node %1 (hook)")

	assert.ErrorIs(t, tp.AddHook(0, clip(1)), cr.ErrMissingNode)
	assert.ErrorIs(t, tp.AddHook(x, nil), cr.ErrInvalidArgument)
	assert.ErrorIs(t, tp.RemoveHooks(newTape().Leaf(1)), cr.ErrMissingNode)
}

// softClip is a smooth clipping hook in both forms: h(c) = tanh(c), with
// Dh(c)[cdot] = (1 - tanh(c)^2) cdot.
func softClip() (core.Hook[float64], core.DualHook[float64]) {
	first := func(v float64) (float64, error) { return math.Tanh(v), nil }
	dual := func(ct cr.Dual[float64]) (cr.Dual[float64], error) {
		th := math.Tanh(ct.Value)
		out := cr.Dual[float64]{Value: th}
		if ct.HasTangent {
			out.Tangent, out.HasTangent = (1-th*th)*ct.Tangent, true
		}
		return out, nil
	}
	return first, dual
}

// hookedGrad records f(x, z) = sin(x^3 z) * x with a soft clip on the cotangent of
// u = x^3 z and returns the hooked gradient and, with tangents v, its derivative
// from the second-order sweep.
func hookedGrad(t *testing.T, x0, z0 float64, v [2]float64, dual bool) (g, hv [2]float64, err error) {
	tp := newTape()
	x, z := tp.Leaf(x0), tp.Leaf(z0)
	u := tp.Apply(mulOp, tp.Apply(cubeOp, x), z)
	y := tp.Apply(mulOp, tp.Apply(sinOp, u), x)
	first, dh := softClip()
	if dual {
		require.NoError(t, tp.AddDualHook(u, dh))
	} else {
		require.NoError(t, tp.AddHook(u, first))
	}
	seeds := map[cr.NodeID]float64{}
	for k, id := range []cr.NodeID{x, z} {
		if v[k] != 0 { // an absent tangent, not a zero one
			seeds[id] = v[k]
		}
	}
	tan, err := tp.ForwardTangents(seeds)
	require.NoError(t, err)
	gr, gt, err := tp.BackwardWithTangents(y, tan)
	if err != nil {
		return g, hv, err
	}
	first1, err := tp.Backward(y)
	require.NoError(t, err)
	for k, id := range []cr.NodeID{x, z} {
		g[k], _ = gr.Of(id)
		hv[k], _ = gt.Of(id)
		f1, _ := first1.Of(id)
		assert.Equal(t, f1, g[k], "second-order and first-order sweeps see the same hooked gradient")
	}
	return g, hv, nil
}

func TestDualHookDifferentiatesHookedGradient(t *testing.T) {
	x0, z0 := 0.9, -0.6
	v := [2]float64{0.3, 1.7}
	g, hv, err := hookedGrad(t, x0, z0, v, true)
	require.NoError(t, err)

	// Closed form of the hooked gradient: ubar = tanh(x cos u), xbar = ubar 3x^2 z + sin u.
	u := x0 * x0 * x0 * z0
	ub := math.Tanh(x0 * math.Cos(u))
	assert.InDelta(t, ub*3*x0*x0*z0+math.Sin(u), g[0], 1e-14)
	assert.InDelta(t, ub*x0*x0*x0, g[1], 1e-14)

	// Its derivative along v, by central differences of the hooked gradient.
	const h = 1e-5
	gp, _, err := hookedGrad(t, x0+h*v[0], z0+h*v[1], v, true)
	require.NoError(t, err)
	gm, _, err := hookedGrad(t, x0-h*v[0], z0-h*v[1], v, true)
	require.NoError(t, err)
	for k := range 2 {
		assert.InDelta(t, (gp[k]-gm[k])/(2*h), hv[k], 1e-8, "component %d", k)
	}

	t.Run("first-order hook reached by a tangent", func(t *testing.T) {
		_, _, err := hookedGrad(t, x0, z0, v, false)
		assert.ErrorIs(t, err, cr.ErrHVPNotSupported)
	})
	t.Run("first-order hook with no tangent", func(t *testing.T) {
		g0, hv0, err := hookedGrad(t, x0, z0, [2]float64{}, false)
		require.NoError(t, err, "with no tangent the hook's derivative is not needed")
		assert.Equal(t, g, g0)
		assert.Equal(t, [2]float64{}, hv0)
	})
}

// Several hooks on one node compose in the order they were added: each sees the
// cotangent the one before it returned.
func TestHooksCompose(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(0.3)
	u := tp.Apply(sinOp, x)
	y := tp.Apply(scaleOp(1), u)
	require.NoError(t, tp.AddHook(u, func(v float64) (float64, error) { return 2 * v, nil }))
	require.NoError(t, tp.AddHook(u, func(v float64) (float64, error) { return v + 1, nil }))
	g, err := tp.Backward(y)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	assert.InDelta(t, (2*1+1)*math.Cos(0.3), gx, 1e-15) // (2 ubar + 1) cos x with ubar = 1
}

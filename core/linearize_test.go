package core_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// twoOutputs records f(x, z) = (sin(x^3 z), x z) with an instrumented sin.
func twoOutputs(tr *tracker, calls *int) func(*core.Tape[float64], []cr.NodeID) []cr.NodeID {
	return func(tp *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		*calls++
		x, z := in[0], in[1]
		return []cr.NodeID{tp.Apply(tr.op(), tp.Apply(mulOp, tp.Apply(cubeOp, x), z)), tp.Apply(mulOp, x, z)}
	}
}

func TestLinearizeAndTranspose(t *testing.T) {
	x0, z0 := 0.9, -0.6
	var tr tracker
	calls := 0
	y, lin, err := core.Linearize[float64](cr.Float64Space{}, twoOutputs(&tr, &calls), x0, z0)
	require.NoError(t, err)
	u := x0 * x0 * x0 * z0
	assert.Equal(t, []float64{math.Sin(u), x0 * z0}, y)

	// The Jacobian in closed form.
	J := [2][2]float64{{math.Cos(u) * 3 * x0 * x0 * z0, math.Cos(u) * x0 * x0 * x0}, {z0, x0}}

	// The same function on an ordinary tape, for Backward and ForwardTangents.
	ref := newTape()
	rx, rz := ref.Leaf(x0), ref.Leaf(z0)
	var rtr tracker
	refCalls := 0
	outs := twoOutputs(&rtr, &refCalls)(ref, []cr.NodeID{rx, rz})

	vs := [][2]float64{{1, 0}, {0, 1}, {0.3, 1.7}, {-2, 0.5}}
	for _, v := range vs {
		jv, err := lin.Apply(v[0], v[1])
		require.NoError(t, err)
		tan, err := ref.ForwardTangents(map[cr.NodeID]float64{rx: v[0], rz: v[1]})
		require.NoError(t, err)
		for i := range 2 {
			want, _ := tan.Of(outs[i])
			assert.Equal(t, want, jv[i], "JVP output %d along %v", i, v)
			assert.InDelta(t, J[i][0]*v[0]+J[i][1]*v[1], jv[i], 1e-14)
		}
	}

	vjp := lin.Transpose()
	for _, w := range vs {
		jtw, err := vjp.Apply(w[0], w[1])
		require.NoError(t, err)
		// Backward from each output, weighted: J^T w = w0 grad y0 + w1 grad y1.
		g0, err := ref.BackwardSeed(outs[0], w[0])
		require.NoError(t, err)
		g1, err := ref.BackwardSeed(outs[1], w[1])
		require.NoError(t, err)
		for k, id := range []cr.NodeID{rx, rz} {
			a, _ := g0.Of(id)
			b, _ := g1.Of(id)
			assert.InDelta(t, a+b, jtw[k], 1e-15, "VJP input %d along %v", k, w)
			assert.InDelta(t, J[0][k]*w[0]+J[1][k]*w[1], jtw[k], 1e-14)
		}
		// The adjoint identity <w, J v> = <J^T w, v>.
		v := vs[2]
		jv, err := lin.Apply(v[0], v[1])
		require.NoError(t, err)
		assert.InDelta(t, w[0]*jv[0]+w[1]*jv[1], jtw[0]*v[0]+jtw[1]*v[1], 1e-14)
	}

	back, err := vjp.Transpose().Apply(0.3, 1.7)
	require.NoError(t, err)
	direct, err := lin.Apply(0.3, 1.7)
	require.NoError(t, err)
	assert.Equal(t, direct, back, "Transpose is an involution")

	assert.Equal(t, 1, calls, "f ran once: the maps reuse the recorded rules")
	assert.Equal(t, 1, tr.applies)

	_, err = lin.Apply(1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = vjp.Apply(1, 2, 3)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

func TestLinearizeZerosAndErrors(t *testing.T) {
	// f(x, z) = (x^3, 5): the constant output has a zero JVP and z a zero VJP.
	f := func(tp *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{tp.Apply(cubeOp, in[0]), tp.Constant(5)}
	}
	y, lin, err := core.Linearize[float64](cr.Float64Space{}, f, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, []float64{8, 5}, y)
	jv, err := lin.Apply(1, 1)
	require.NoError(t, err)
	assert.Equal(t, []float64{12, 0}, jv)
	jtw, err := lin.Transpose().Apply(1, 1)
	require.NoError(t, err)
	assert.Equal(t, []float64{12, 0}, jtw)

	_, _, err = core.Linearize[float64](cr.Float64Space{}, func(tp *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{tp.Apply(sinOp, 0)}
	}, 1)
	assert.ErrorIs(t, err, cr.ErrMissingNode)
}

// Hooks shape only the tape's own reverse sweeps: the transpose of a linear map,
// which transposes a forward sweep that never sees them, ignores them.
func TestLinearMapIgnoresHooks(t *testing.T) {
	f := func(tp *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		u := tp.Apply(sinOp, x[0])
		if err := tp.AddHook(u, func(v float64) (float64, error) { return 100 * v, nil }); err != nil {
			panic(err)
		}
		return []cr.NodeID{tp.Apply(scaleOp(2), u)}
	}
	_, m, err := core.Linearize(f64, f, 0.4)
	require.NoError(t, err)
	jv, err := m.Apply(1)
	require.NoError(t, err)
	require.InDelta(t, 2*math.Cos(0.4), jv[0], 1e-15)
	vjp, err := m.Transpose().Apply(1)
	require.NoError(t, err)
	require.InDelta(t, 2*math.Cos(0.4), vjp[0], 1e-15, "the hook (x100) must not run")
}

package core_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// toXY is a multi-output scalar op: (r, th) -> (x, y, q) with x = r cos th,
// y = r sin th and q = the quadrant of (x, y), which is not differentiable.
type toXY struct{ noSecond bool }

func (toXY) Name() string                    { return "toxy" }
func (toXY) NumOutputs() int                 { return 3 }
func (toXY) Differentiable(int) bool         { return true }
func (toXY) OutputDifferentiable(m int) bool { return m < 2 }
func (o toXY) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	if len(x) != 2 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "toxy takes 2 inputs")
	}
	r, th := x[0], x[1]
	s, c := math.Sincos(th)
	q := math.Floor(math.Mod(th, 2*math.Pi) / (math.Pi / 2))
	rule := &toXYRule{in: [2]cr.NodeID{in[0], in[1]}, r: r, s: s, c: c}
	y[0], y[1], y[2] = r*c, r*s, q
	if o.noSecond {
		return toXYFirst{rule}, nil
	}
	return rule, nil
}

type toXYRule struct {
	in      [2]cr.NodeID
	r, s, c float64
}

// toXYFirst hides the second-order rule.
type toXYFirst struct{ r *toXYRule }

func (f toXYFirst) Inputs() []cr.NodeID { return f.r.Inputs() }
func (f toXYFirst) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return f.r.Pullback(ybar, has, dst)
}

func (u *toXYRule) Inputs() []cr.NodeID { return u.in[:] }

func get(v []float64, has []bool, m int) float64 {
	if has[m] {
		return v[m]
	}
	return 0
}

// rbar = c xbar + s ybar, thbar = -r s xbar + r c ybar.
func (u *toXYRule) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	if has[2] {
		return dst, errors.New("cotangent reached the non-differentiable output")
	}
	xb, yb := get(ybar, has, 0), get(ybar, has, 1)
	return append(dst, cr.Contribution[float64]{Node: u.in[0], Value: u.c*xb + u.s*yb},
		cr.Contribution[float64]{Node: u.in[1], Value: -u.r*u.s*xb + u.r*u.c*yb}), nil
}

// xdot = c rdot - r s thdot, ydot = s rdot + r c thdot.
func (u *toXYRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	rd, ok1 := tan(u.in[0])
	td, ok2 := tan(u.in[1])
	if !ok1 && !ok2 {
		return nil
	}
	ydot[0], ydot[1] = u.c*rd-u.r*u.s*td, u.s*rd+u.r*u.c*td
	has[0], has[1] = true, true
	return nil
}

func (u *toXYRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct, has, tan := a.Cotangents, a.Has, a.TangentOf
	rd, _ := tan(u.in[0])
	td, _ := tan(u.in[1])
	var xb, yb, xbd, ybd float64
	if has[0] {
		xb = ct[0].Value
		if ct[0].HasTangent {
			xbd = ct[0].Tangent
		}
	}
	if has[1] {
		yb = ct[1].Value
		if ct[1].HasTangent {
			ybd = ct[1].Tangent
		}
	}
	r, s, c := u.r, u.s, u.c
	rbar := cr.Dual[float64]{Value: c*xb + s*yb, Tangent: c*xbd + s*ybd - s*td*xb + c*td*yb, HasTangent: true}
	thbar := cr.Dual[float64]{Value: -r*s*xb + r*c*yb,
		Tangent: -r*s*xbd + r*c*ybd + (-s*rd-r*c*td)*xb + (c*rd-r*s*td)*yb, HasTangent: true}
	return append(dst, cr.DualContribution[float64]{Node: u.in[0], Cotangent: rbar},
		cr.DualContribution[float64]{Node: u.in[1], Cotangent: thbar}), nil
}

// multiLosses are scalar functions of (r, th) through toxy, using its outputs in
// different combinations; each has a closed form for checking.
var multiLosses = []struct {
	name   string
	record func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID
	f      func(r, th float64) float64
}{
	{"x only", func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID {
		o := t.ApplyMulti(toXY{}, r, th)
		return t.Apply(cubeOp, o[0])
	}, func(r, th float64) float64 { return math.Pow(r*math.Cos(th), 3) }},
	{"y only", func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID {
		o := t.ApplyMulti(toXY{}, r, th)
		return t.Apply(sinOp, o[1])
	}, func(r, th float64) float64 { return math.Sin(r * math.Sin(th)) }},
	{"x and y", func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID {
		o := t.ApplyMulti(toXY{}, r, th)
		return t.Apply(mulOp, t.Apply(cubeOp, o[0]), t.Apply(sinOp, o[1]))
	}, func(r, th float64) float64 { return math.Pow(r*math.Cos(th), 3) * math.Sin(r*math.Sin(th)) }},
	{"x, y and the quadrant", func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID {
		o := t.ApplyMulti(toXY{}, r, th)
		return t.Apply(mulOp, t.Apply(mulOp, o[0], o[1]), t.Apply(shiftOp(1), o[2]))
	}, func(r, th float64) float64 { return r * math.Cos(th) * r * math.Sin(th) * (1 + 0) }},
	{"two uses of x, chained ops", func(t *core.Tape[float64], r, th cr.NodeID) cr.NodeID {
		o := t.ApplyMulti(toXY{}, r, th)
		o2 := t.ApplyMulti(toXY{}, o[0], o[1])
		return t.Apply(mulOp, t.Apply(sinOp, o2[1]), o[0])
	}, func(r, th float64) float64 {
		x, y := r*math.Cos(th), r*math.Sin(th)
		return math.Sin(x*math.Sin(y)) * x
	}},
}

func TestMultiOutputGradientAndHVP(t *testing.T) {
	const r0, th0 = 1.3, 0.4 // first quadrant, away from the quadrant boundaries
	for _, tc := range multiLosses {
		t.Run(tc.name, func(t *testing.T) {
			tape := newTape()
			r, th := tape.Leaf(r0), tape.Leaf(th0)
			out := tc.record(tape, r, th)
			require.NoError(t, tape.Err())
			v, err := tape.Value(out)
			require.NoError(t, err)
			require.InDelta(t, tc.f(r0, th0), v, 1e-12)

			g, err := tape.Backward(out)
			require.NoError(t, err)
			gr, _ := g.Of(r)
			gt, _ := g.Of(th)
			fr := func(r, th float64) float64 { return tc.f(r, th) }
			require.InDelta(t, fdDeriv(func(e float64) float64 { return fr(r0+e, th0) }), gr, 1e-7)
			require.InDelta(t, fdDeriv(func(e float64) float64 { return fr(r0, th0+e) }), gt, 1e-7)

			// H v by forward-over-reverse against finite differences of the gradient.
			vr, vt := 0.7, -0.3
			tan, err := tape.ForwardTangents(map[cr.NodeID]float64{r: vr, th: vt})
			require.NoError(t, err)
			_, hv, err := tape.BackwardWithTangents(out, tan)
			require.NoError(t, err)
			hr, _ := hv.Of(r)
			ht, _ := hv.Of(th)
			grad := func(e float64) (float64, float64) {
				tp := newTape()
				a, b := tp.Leaf(r0+e*vr), tp.Leaf(th0+e*vt)
				gg, err := tp.Backward(tc.record(tp, a, b))
				require.NoError(t, err)
				x, _ := gg.Of(a)
				y, _ := gg.Of(b)
				return x, y
			}
			require.InDelta(t, fdDeriv(func(e float64) float64 { x, _ := grad(e); return x }), hr, 1e-6)
			require.InDelta(t, fdDeriv(func(e float64) float64 { _, y := grad(e); return y }), ht, 1e-6)

			// The JVP of the loss matches <grad, v>.
			jv, ok := tan.Of(out)
			require.True(t, ok)
			require.InDelta(t, gr*vr+gt*vt, jv, 1e-12)
		})
	}
}

// fdDeriv is the 5-point central difference of f at 0.
func fdDeriv(f func(float64) float64) float64 {
	const h = 1e-3
	return (-f(2*h) + 8*f(h) - 8*f(-h) + f(-2*h)) / (12 * h)
}

func TestMultiOutputSeedsAtEveryOutput(t *testing.T) {
	tape := newTape()
	r, th := tape.Leaf(2), tape.Leaf(0.5)
	o := tape.ApplyMulti(toXY{}, r, th)
	require.Len(t, o, 3)
	s, c := math.Sincos(0.5)

	// Seed at the first output, which is not the node that carries the rule.
	g, err := tape.BackwardSeed(o[0], 1)
	require.NoError(t, err)
	gr, _ := g.Of(r)
	gt, _ := g.Of(th)
	require.InDelta(t, c, gr, 1e-15)
	require.InDelta(t, -2*s, gt, 1e-15)

	// AllNodes keeps the outputs' cotangents; the unused output has none.
	g, err = tape.BackwardSeed(o[1], 1, core.AllNodes())
	require.NoError(t, err)
	y1, ok := g.Of(o[1])
	require.True(t, ok)
	require.Equal(t, 1.0, y1)
	_, ok = g.Of(o[0])
	require.False(t, ok, "the unused output's cotangent is not materialised")

	// The non-differentiable output is a constant: seeding it reaches nothing.
	require.False(t, tape.RequiresGrad(o[2]))
	g, err = tape.BackwardSeed(o[2], 1)
	require.NoError(t, err)
	require.Equal(t, 0, g.Len())

	// Every output reports the op's inputs.
	ins, err := tape.Inputs(o[0])
	require.NoError(t, err)
	require.Equal(t, []cr.NodeID{r, th}, ins)
}

func TestMultiOutputHooksLinearizeCheckpointDOT(t *testing.T) {
	rec := multiLosses[2].record
	// A hook on the first output (a sibling) doubles its cotangent.
	tape := newTape()
	r, th := tape.Leaf(1.1), tape.Leaf(0.3)
	o := tape.ApplyMulti(toXY{}, r, th)
	loss := tape.Apply(mulOp, o[0], o[1]) // xy
	calls := 0
	require.NoError(t, tape.AddHook(o[0], func(v float64) (float64, error) { calls++; return 2 * v, nil }))
	g, err := tape.Backward(loss, core.AllNodes())
	require.NoError(t, err)
	require.Equal(t, 1, calls)
	x, _ := tape.Value(o[0])
	y, _ := tape.Value(o[1])
	c, s := math.Cos(0.3), math.Sin(0.3)
	gr, _ := g.Of(r)
	require.InDelta(t, c*2*y+s*x, gr, 1e-14)

	// Linearize: the JVP and its transpose through the multi-output op.
	ys, lin, err := core.Linearize[float64](cr.Float64Space{}, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		o := t.ApplyMulti(toXY{}, in[0], in[1])
		return []cr.NodeID{o[1], o[0]}
	}, 1.1, 0.3)
	require.NoError(t, err)
	require.InDelta(t, 1.1*s, ys[0], 1e-15)
	jv, err := lin.Apply(1, 0)
	require.NoError(t, err)
	require.InDelta(t, s, jv[0], 1e-15)
	require.InDelta(t, c, jv[1], 1e-15)
	vj, err := lin.Transpose().Apply(1, 0)
	require.NoError(t, err)
	require.InDelta(t, s, vj[0], 1e-15)
	require.InDelta(t, 1.1*c, vj[1], 1e-15)

	// A checkpoint whose body holds a multi-output op gives the same gradient and
	// HVP as the inline recording.
	inline := newTape()
	a, b := inline.Leaf(1.1), inline.Leaf(0.3)
	want := inline.Apply(cubeOp, rec(inline, a, b))
	cp := newTape()
	a2, b2 := cp.Leaf(1.1), cp.Leaf(0.3)
	got := cp.Apply(cubeOp, cp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
		return rec(sub, in[0], in[1])
	}, a2, b2))
	hvOf := func(tp *core.Tape[float64], out cr.NodeID, a, b cr.NodeID) [4]float64 {
		tan, err := tp.ForwardTangents(map[cr.NodeID]float64{a: 1, b: 2})
		require.NoError(t, err)
		g, hv, err := tp.BackwardWithTangents(out, tan)
		require.NoError(t, err)
		ga, _ := g.Of(a)
		gb, _ := g.Of(b)
		ha, _ := hv.Of(a)
		hb, _ := hv.Of(b)
		return [4]float64{ga, gb, ha, hb}
	}
	w, gt := hvOf(inline, want, a, b), hvOf(cp, got, a2, b2)
	for k := range w {
		require.InDelta(t, w[k], gt[k], 1e-12*math.Max(1, math.Abs(w[k])))
	}

	var buf bytes.Buffer
	require.NoError(t, tape.WriteDOT(&buf))
	require.Contains(t, buf.String(), "toxy[0 of 3]")
	require.Contains(t, buf.String(), "toxy[2 of 3]")
	require.Equal(t, 2, strings.Count(buf.String(), "-> n2 "), "input edges drawn to the first output:\n%s", buf.String())
}

func TestMultiOutputErrors(t *testing.T) {
	tape := newTape()
	r := tape.Leaf(1)
	// Wrong arity: the op's error, and NumOutputs zero NodeIDs.
	o := tape.ApplyMulti(toXY{}, r)
	require.Len(t, o, 3)
	require.False(t, o[0].Valid())
	require.ErrorIs(t, tape.Err(), cr.ErrInvalidArgument)
	var oe *cr.OpError
	require.ErrorAs(t, tape.Err(), &oe)
	require.Equal(t, "toxy", oe.Op)

	// A second-order sweep through a multi-output rule without the second-order
	// method names the op.
	tape = newTape()
	r, th := tape.Leaf(1), tape.Leaf(2)
	o = tape.ApplyMulti(toXY{noSecond: true}, r, th)
	loss := tape.Apply(mulOp, o[0], o[1])
	_, err := tape.Backward(loss)
	require.NoError(t, err)
	_, err = tape.ForwardTangents(map[cr.NodeID]float64{r: 1})
	require.ErrorIs(t, err, cr.ErrNoRule)
	require.ErrorContains(t, err, "toxy")
}

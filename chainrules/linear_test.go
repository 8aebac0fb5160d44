package chainrules_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// A weighted sum y = 2 a - 3 b written with LinearRule: the map, its adjoint, and
// nothing else. The tape then differentiates it in reverse, forward and second
// order.
func ExampleLinearRule() {
	w := []float64{2, -3}
	op := cr.OpFunc[float64]{OpName: "lincomb", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		apply := func(xdot []float64, ok []bool) (float64, error) {
			var y float64
			for k, v := range xdot {
				if ok[k] {
					y += w[k] * v
				}
			}
			return y, nil
		}
		adjoint := func(k int, ybar float64) (float64, error) { return w[k] * ybar, nil }
		y, _ := apply(x, []bool{true, true})
		return y, cr.LinearRule(in, nil, apply, adjoint), nil
	}}

	tape := core.NewTape[float64](cr.Float64Space{})
	a, b := tape.Leaf(1), tape.Leaf(5)
	y := tape.Apply(op, a, b)
	g, _ := tape.Backward(y)
	ga, _ := g.Of(a)
	gb, _ := g.Of(b)
	tan, _ := tape.ForwardTangents(map[cr.NodeID]float64{b: 1}) // only b moves
	yd, _ := tan.Of(y)
	v, _ := tape.Value(y)
	fmt.Println(v, ga, gb, yd)
	// Output: -13 2 -3 -3
}

// scaled is the op y = x_2 x_0 + 3 x_1 whose input 2 is a weight that is not
// differentiated (like an index tensor): the op is linear in x_0 and x_1, with maps
// that depend on x_2.
type scaled struct{}

func (scaled) Name() string                  { return "scaled" }
func (scaled) NumOutputs() int               { return 1 }
func (scaled) Differentiable(k int) bool     { return k != 2 }
func (scaled) OutputDifferentiable(int) bool { return true }
func (scaled) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	c := []float64{x[2], 3}
	apply := func(xdot []float64, ok []bool) (float64, error) {
		var y float64
		for k := range 2 {
			if ok[k] {
				y += c[k] * xdot[k]
			}
		}
		return y, nil
	}
	adjoint := func(k int, ybar float64) (float64, error) { return c[k] * ybar, nil }
	y[0] = x[2]*x[0] + 3*x[1]
	return cr.LinearRule(in, []bool{true, true, false}, apply, adjoint), nil
}

func TestLinearRuleChecks(t *testing.T) {
	ruletest.Check(t, cr.Float64Space{}, cr.Op[float64](scaled{}), []float64{0.5, -1.25, 2.5}, ruletest.Config{})
	neg := cr.OpFunc[float64]{OpName: "neg", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		f := func(v float64) (float64, error) { return -v, nil }
		return -x[0], cr.UnaryLinearRule(in[0], f, f), nil
	}}
	ruletest.Check(t, cr.Float64Space{}, cr.Op[float64](neg), []float64{0.75}, ruletest.Config{})
}

// secondArgs returns the arguments of a single-output rule's PullbackWithTangents
// for the cotangent pair ct and the input tangents tan (the output's tangent is
// zero: a linear rule does not read it).
func secondArgs(ct cr.Dual[float64], tan cr.TangentOf[float64]) cr.SecondOrderArgs[float64] {
	return cr.SecondOrderArgs[float64]{Cotangents: []cr.Dual[float64]{ct}, Has: []bool{true}, Outputs: make([]cr.Dual[float64], 1), TangentOf: tan}
}

// ids returns n NodeIDs of one tape.
func ids(n int) []cr.NodeID {
	out := make([]cr.NodeID, n)
	for k := range out {
		out[k] = cr.NewNodeID(1, k+1)
	}
	return out
}

func TestLinearRuleInputsCopied(t *testing.T) {
	in := ids(2)
	need := []bool{true, true}
	r := cr.LinearRule(in, need, nil, func(_ int, g float64) (float64, error) { return g, nil })
	want := ids(2)
	in[0], need[1] = cr.NewNodeID(9, 9), false // the tape reuses its scratch slices
	assert.Equal(t, want, r.Inputs())
	cs, err := r.Pullback([]float64{1}, []bool{true}, nil)
	require.NoError(t, err)
	assert.Len(t, cs, 2)
}

// need false leaves an input out of both pullbacks and keeps its tangent unread.
func TestLinearRuleNeed(t *testing.T) {
	in := ids(3)
	var got []bool
	apply := func(xdot []float64, ok []bool) (float64, error) {
		got = append([]bool(nil), ok...)
		return xdot[0] + xdot[2], nil
	}
	r := cr.LinearRule(in, []bool{true, false, true}, apply, func(k int, g float64) (float64, error) { return float64(k) * g, nil })
	cs, err := r.Pullback([]float64{2}, []bool{true}, nil)
	require.NoError(t, err)
	assert.Equal(t, []cr.Contribution[float64]{{Node: in[0], Value: 0}, {Node: in[2], Value: 4}}, cs)

	tangentOf := func(id cr.NodeID) (float64, bool) {
		require.NotEqual(t, in[1], id, "the tangent of an input that is not needed was read")
		return 0, true // a present zero is a tangent, not an absent one
	}
	ydot, has := make([]float64, 1), make([]bool, 1)
	err = r.(cr.ForwardRule[float64]).Forward(tangentOf, ydot, has)
	require.NoError(t, err)
	assert.True(t, has[0])
	assert.Zero(t, ydot[0])
	assert.Equal(t, []bool{true, false, true}, got)

	ds, err := r.(cr.SecondOrderRule[float64]).PullbackWithTangents(secondArgs(cr.Dual[float64]{Value: 1, Tangent: 5, HasTangent: true}, tangentOf), nil)
	require.NoError(t, err)
	assert.Equal(t, []cr.DualContribution[float64]{
		{Node: in[0], Cotangent: cr.Dual[float64]{Value: 0, Tangent: 0, HasTangent: true}},
		{Node: in[2], Cotangent: cr.Dual[float64]{Value: 2, Tangent: 10, HasTangent: true}},
	}, ds)
	ds, err = r.(cr.SecondOrderRule[float64]).PullbackWithTangents(secondArgs(cr.Dual[float64]{Value: 1}, tangentOf), ds[:0])
	require.NoError(t, err)
	assert.Equal(t, []cr.DualContribution[float64]{
		{Node: in[0], Cotangent: cr.Dual[float64]{Value: 0}},
		{Node: in[2], Cotangent: cr.Dual[float64]{Value: 2}},
	}, ds)
}

// With every tangent absent, Forward reports a zero tangent without calling
// the map or allocating.
func TestLinearRuleAbsentTangents(t *testing.T) {
	called := false
	apply := func([]float64, []bool) (float64, error) { called = true; return 0, nil }
	unary := func(float64) (float64, error) { called = true; return 0, nil }
	none := func(cr.NodeID) (float64, bool) { return 0, false }
	for name, r := range map[string]cr.Rule[float64]{
		"multi": cr.LinearRule(ids(3), nil, apply, nil),
		"need":  cr.LinearRule(ids(3), []bool{false, true, true}, apply, nil),
		"unary": cr.UnaryLinearRule(ids(1)[0], unary, nil),
	} {
		f := r.(cr.ForwardRule[float64])
		ydot, has := make([]float64, 1), make([]bool, 1)
		allocs := testing.AllocsPerRun(100, func() {
			err := f.Forward(none, ydot, has)
			if ok := has[0]; ok || err != nil {
				t.Fatalf("%s: ok %v, err %v", name, ok, err)
			}
		})
		assert.Zero(t, allocs, name)
		assert.False(t, called, name)
	}
}

// The errors of the maps come back unchanged, with dst as it was; a malformed need
// and missing maps are errors too.
func TestLinearRuleErrors(t *testing.T) {
	boom := errors.New("boom")
	in := ids(2)
	fail := func(k int, g float64) (float64, error) {
		if k == 1 {
			return 0, fmt.Errorf("input %d: %w", k, boom)
		}
		return g, nil
	}
	r := cr.LinearRule(in, nil, func([]float64, []bool) (float64, error) { return 0, boom }, fail)
	dst := []cr.Contribution[float64]{{Node: in[0], Value: 7}}
	got, err := r.Pullback([]float64{1}, []bool{true}, dst)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, dst, got)
	ydot, has := make([]float64, 1), make([]bool, 1)
	err = r.(cr.ForwardRule[float64]).Forward(func(cr.NodeID) (float64, bool) { return 1, true }, ydot, has)
	assert.ErrorIs(t, err, boom)
	assert.False(t, has[0])
	ds, err := r.(cr.SecondOrderRule[float64]).PullbackWithTangents(secondArgs(cr.Dual[float64]{Value: 1}, nil), nil)
	assert.ErrorIs(t, err, boom)
	assert.Empty(t, ds)

	bad := cr.LinearRule(in, []bool{true}, nil, fail)
	_, err = bad.Pullback([]float64{1}, []bool{true}, nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	err = bad.(cr.ForwardRule[float64]).Forward(func(cr.NodeID) (float64, bool) { return 1, true }, ydot, has)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = bad.(cr.SecondOrderRule[float64]).PullbackWithTangents(secondArgs(cr.Dual[float64]{Value: 1}, nil), nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)

	for _, r := range []cr.Rule[float64]{cr.LinearRule[float64](in, nil, nil, nil), cr.UnaryLinearRule[float64](in[0], nil, nil)} {
		_, err = r.Pullback([]float64{1}, []bool{true}, nil)
		assert.ErrorIs(t, err, cr.ErrNoRule)
		err = r.(cr.ForwardRule[float64]).Forward(func(cr.NodeID) (float64, bool) { return 1, true }, ydot, has)
		assert.ErrorIs(t, err, cr.ErrNoRule)
		_, err = r.(cr.SecondOrderRule[float64]).PullbackWithTangents(secondArgs(cr.Dual[float64]{Value: 1}, nil), nil)
		assert.ErrorIs(t, err, cr.ErrNoRule)
	}
}

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

func TestNoGradDetaches(t *testing.T) {
	// z = sin(x) * x with sin(x) recorded without gradient: dz/dx = sin(x) only,
	// where the full derivative would be sin(x) + x cos(x).
	const x0 = 0.7
	tp := newTape()
	x := tp.Leaf(x0)
	var s cr.NodeID
	tp.NoGrad(func() {
		assert.False(t, tp.GradEnabled())
		s = tp.Apply(sinOp, x)
	})
	assert.True(t, tp.GradEnabled(), "NoGrad restores the setting")
	z := tp.Apply(mulOp, s, x)
	require.NoError(t, tp.Err())

	sv, err := tp.Value(s)
	require.NoError(t, err)
	assert.Equal(t, math.Sin(x0), sv, "values are still computed")
	assert.False(t, tp.RequiresGrad(s))
	ins, err := tp.Inputs(s)
	require.NoError(t, err)
	assert.Nil(t, ins, "the rule is dropped")
	name, _ := tp.OpName(s)
	assert.Equal(t, "sin", name)

	g, err := tp.Backward(z, core.AllNodes())
	require.NoError(t, err)
	gx, _ := g.Of(x)
	assert.Equal(t, math.Sin(x0), gx, "no gradient flows through the detached node")
	_, ok := g.Of(s)
	assert.False(t, ok)

	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	require.NoError(t, err)
	_, ok = tan.Of(s)
	assert.False(t, ok, "no tangent flows through it either")
	zd, _ := tan.Of(z)
	assert.Equal(t, math.Sin(x0), zd)
}

func TestNoGradReleasesRules(t *testing.T) {
	var tr tracker
	tp := newTape()
	x := tp.Leaf(0.3)
	y := x
	tp.NoGrad(func() {
		for range 10 {
			y = tp.Apply(tr.op(), y)
		}
	})
	for range 5 {
		y = tp.Apply(tr.op(), y)
	}
	require.NoError(t, tp.Err())
	assert.Equal(t, 15, tr.applies)
	assert.Equal(t, 5, tr.live(), "only the rules recorded with gradients on are held")
	assert.Equal(t, 16, tp.Len())
	runtime.KeepAlive(tp)
}

func TestSetGradEnabled(t *testing.T) {
	tp := newTape()
	assert.True(t, tp.SetGradEnabled(false))
	assert.False(t, tp.SetGradEnabled(false))
	x := tp.Leaf(2)
	assert.True(t, tp.IsLeaf(x), "a leaf recorded without gradient is still a leaf")
	c := tp.Apply(cubeOp, x)
	assert.False(t, tp.SetGradEnabled(true))
	y := tp.Apply(mulOp, c, x)
	g, err := tp.Backward(y)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	assert.Equal(t, 8.0, gx)

	func() {
		defer func() { assert.NotNil(t, recover()) }()
		tp.NoGrad(func() { panic("boom") })
	}()
	assert.True(t, tp.GradEnabled(), "restored after a panic")
}

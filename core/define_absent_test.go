package core_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// zeroCounter is the float64 space counting the zeros it materialises.
type zeroCounter struct {
	cr.Float64Space
	n *int
}

func (s zeroCounter) Zero(v float64) float64 { *s.n++; return 0 }

// sincosAbsent is x -> (sin x, cos x) with a pullback that leaves out the term of an
// absent cotangent; seen records, per output, whether the pullback got a node.
func sincosAbsent(space cr.Space[float64], seen *[2]bool) cr.Op[float64] {
	return core.Define(core.Def[float64]{Name: "sincos", Space: space, Arity: 1, Outputs: 2,
		Primal: func(x []float64) ([]float64, error) {
			s, c := math.Sincos(x[0])
			return []float64{s, c}, nil
		},
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			seen[0], seen[1] = ybar[0].Valid(), ybar[1].Valid()
			var xbar cr.NodeID
			if ybar[0].Valid() { // cos(x) sbar
				xbar = t.Apply(mulOp, y[1], ybar[0])
			}
			if ybar[1].Valid() { // - sin(x) cbar
				c := t.Apply(scaleOp(-1), t.Apply(mulOp, y[0], ybar[1]))
				if xbar.Valid() {
					c = t.Apply(addDef, xbar, c)
				}
				xbar = c
			}
			return []cr.NodeID{xbar}
		}})
}

// An output nobody used has an absent cotangent: the pullback gets the zero NodeID
// and no zero is materialised.
func TestDefineMultiAbsentCotangentIsNotMaterialised(t *testing.T) {
	var zeros int
	var seen [2]bool
	op := sincosAbsent(zeroCounter{n: &zeros}, &seen)
	const x0 = 0.7
	for _, c := range []struct {
		use  []int
		want float64
	}{
		{[]int{0}, math.Cos(x0)},
		{[]int{1}, -math.Sin(x0)},
		{[]int{0, 1}, math.Cos(x0) - math.Sin(x0)},
	} {
		tp := newTape()
		x := tp.Leaf(x0)
		o := tp.ApplyMulti(op, x)
		y := o[c.use[0]]
		if len(c.use) == 2 {
			y = tp.Apply(addDef, o[0], o[1])
		}
		zeros = 0
		g, err := tp.Backward(y)
		require.NoError(t, err)
		dx, _ := g.Of(x)
		require.InDelta(t, c.want, dx, 1e-15, "outputs %v", c.use)
		for m := range 2 {
			require.Equal(t, len(c.use) == 2 || c.use[0] == m, seen[m], "outputs %v: the pullback got a cotangent node for output %d", c.use, m)
		}
		require.Zero(t, zeros, "outputs %v: zeros materialised", c.use)
	}
	ruletest.Check(t, f64, sincosAbsent(f64, &seen), []float64{x0}, ruletest.Config{})
}

// A pullback that applies ops to every cotangent, absent or not, still works: the
// engine records it again with zeros in place of the absent ones.
func TestDefineMultiPullbackReadingAbsentCotangent(t *testing.T) {
	const x0 = -0.4
	for m, want := range []float64{math.Cos(x0), -math.Sin(x0)} {
		tp := newTape()
		x := tp.Leaf(x0)
		g, err := tp.Backward(tp.ApplyMulti(sincosDef, x)[m])
		require.NoError(t, err)
		dx, _ := g.Of(x)
		require.InDelta(t, want, dx, 1e-15, "output %d", m)
	}
	// A non-differentiable output's cotangent is always absent; a pullback that
	// reads it still works (and a genuine missing node is still reported).
	var got cr.NodeID
	floorOut := core.Define(core.Def[float64]{Name: "twice_floor", Space: f64, Arity: 1, Outputs: 2,
		NonDifferentiableOutputs: []int{1},
		Primal:                   func(x []float64) ([]float64, error) { return []float64{2 * x[0], math.Floor(x[0])}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			got = ybar[1]
			return []cr.NodeID{t.Apply(addDef, t.Apply(scaleOp(2), ybar[0]), t.Apply(scaleOp(0), ybar[1]))}
		}})
	tp := newTape()
	x := tp.Leaf(x0)
	g, err := tp.Backward(tp.ApplyMulti(floorOut, x)[0])
	require.NoError(t, err)
	dx, _ := g.Of(x)
	require.Equal(t, 2.0, dx)
	require.True(t, got.Valid(), "the second recording has a zero constant")
	ruletest.Check(t, f64, floorOut, []float64{x0}, ruletest.Config{})
}

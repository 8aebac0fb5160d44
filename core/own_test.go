package core_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// cloneCounter is tensor.Space counting its Clone calls.
type cloneCounter struct {
	tensor.Space
	clones int
}

func (s *cloneCounter) Clone(v *tensor.Dense) *tensor.Dense {
	s.clones++
	return s.Space.Clone(v)
}

// noOverlap is tensor.Space without chainrules.OverlapSpace (the embedded field is
// named, so MayOverlap is not promoted): every contribution stays borrowed.
type noOverlap struct{ s cloneCounter }

func (n *noOverlap) Zero(like *tensor.Dense) *tensor.Dense { return n.s.Zero(like) }
func (n *noOverlap) One(like *tensor.Dense) (*tensor.Dense, error) {
	return n.s.One(like)
}
func (n *noOverlap) Add(a, b *tensor.Dense) (*tensor.Dense, error) { return n.s.Add(a, b) }
func (n *noOverlap) Accumulate(a, b *tensor.Dense) (*tensor.Dense, error) {
	return n.s.Accumulate(a, b)
}
func (n *noOverlap) Scale(a *tensor.Dense, c float64) *tensor.Dense { return n.s.Scale(a, c) }
func (n *noOverlap) Inner(a, b *tensor.Dense) (float64, error)      { return n.s.Inner(a, b) }
func (n *noOverlap) Clone(v *tensor.Dense) *tensor.Dense            { return n.s.Clone(v) }
func (n *noOverlap) Rand(like *tensor.Dense, r *rand.Rand) *tensor.Dense {
	return n.s.Rand(like, r)
}
func (n *noOverlap) Shape(v *tensor.Dense) []int     { return n.s.Shape(v) }
func (n *noOverlap) Size(v *tensor.Dense) int        { return n.s.Size(v) }
func (n *noOverlap) DType(v *tensor.Dense) string    { return n.s.DType(v) }
func (n *noOverlap) Describe(v *tensor.Dense) string { return n.s.Describe(v) }
func (n *noOverlap) AddRows(a *tensor.Dense, r []int, v *tensor.Dense) (*tensor.Dense, error) {
	return n.s.AddRows(a, r, v)
}
func (n *noOverlap) CheckRows(l *tensor.Dense, r []int, v *tensor.Dense) error {
	return n.s.CheckRows(l, r, v)
}
func (n *noOverlap) CoalesceRows(l *tensor.Dense, p []cr.RowContribution[*tensor.Dense]) ([]int, *tensor.Dense, error) {
	return n.s.CoalesceRows(l, p)
}

// lseParts records a + log sum exp(x - a), a = max x, from its parts and returns
// the output and the node x - a.
func lseParts(tp *core.Tape[*tensor.Dense], x cr.NodeID) (out, d cr.NodeID) {
	a := tp.Apply(reduce.MaxOp(nil, false), x)
	d = tp.Apply(elementwise.SubOp, x, a)
	s := tp.Apply(elementwise.LogOp, tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.ExpOp, d)))
	return tp.Apply(elementwise.AddOp, a, s), d
}

// softmax returns exp(x - max x) / sum exp(x - max x).
func softmax(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	var s float64
	p := make([]float64, len(x))
	for i, v := range x {
		p[i] = math.Exp(v - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// TestOwnedContributions checks that the sweep keeps as its own the cotangents
// fresh rules made for it (own.go): the gradient of lse written from its parts
// gets the max's row-sparse term added in place, without a copy, while a seed,
// a cotangent a hook saw and the inner cotangents AllNodes keeps are never
// written.
func TestOwnedContributions(t *testing.T) {
	xs := []float64{0.5, -1, 2, 0.25, 2, -3}
	want := softmax(xs)
	// The max's term: the cotangent of a, 1 - sum(softmax) (zero up to
	// rounding), split between the two tied elements.
	newX := func() *tensor.Dense {
		x, err := tensor.FromFloat64(append([]float64(nil), xs...), len(xs))
		require.NoError(t, err)
		return x
	}

	t.Run("lse gradient without a copy", func(t *testing.T) {
		sp := &cloneCounter{}
		tp := core.NewTape[*tensor.Dense](sp)
		x := tp.Leaf(newX())
		out, _ := lseParts(tp, x)
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, ok := g.Of(x)
		require.True(t, ok)
		assert.InDeltaSlice(t, want, gx.Float64s(), 1e-15)
		assert.Zero(t, sp.clones, "x's cotangent is exp's pullback with the ties added in place")
	})

	t.Run("without OverlapSpace the engine copies", func(t *testing.T) {
		sp := &noOverlap{}
		tp := core.NewTape[*tensor.Dense](sp)
		x := tp.Leaf(newX())
		out, _ := lseParts(tp, x)
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		assert.InDeltaSlice(t, want, gx.Float64s(), 1e-15)
		assert.Equal(t, 1, sp.s.clones)
	})

	t.Run("a seed passed on is not written", func(t *testing.T) {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(newX())
		d := tp.Apply(elementwise.SubOp, x, tp.Apply(reduce.MaxOp(nil, false), x))
		seedVals := []float64{1, 2, 3, 4, 5, 6}
		seed, err := tensor.FromFloat64(append([]float64(nil), seedVals...), len(seedVals))
		require.NoError(t, err)
		g, err := tp.BackwardSeed(d, seed)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		// x gets the seed, and the max's cotangent -21 split over the ties.
		assert.Equal(t, []float64{1, 2, 3 - 10.5, 4, 5 - 10.5, 6}, gx.Float64s())
		assert.Equal(t, seedVals, seed.Float64s(), "the seed is unchanged")
	})

	t.Run("a cotangent a hook saw is not written", func(t *testing.T) {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(newX())
		out, d := lseParts(tp, x)
		var seen *tensor.Dense
		require.NoError(t, tp.AddHook(d, func(ybar *tensor.Dense) (*tensor.Dense, error) {
			seen = ybar
			return ybar, nil
		}))
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		require.NotNil(t, seen)
		// The hook's value is d's cotangent, softmax exactly; x's adds the ties'
		// term (rounding-sized) in storage of its own.
		seenCopy := append([]float64(nil), seen.Float64s()...)
		assert.InDeltaSlice(t, want, gx.Float64s(), 1e-15)
		assert.Equal(t, seenCopy, seen.Float64s())
		gx.Float64s()[0] = 42
		assert.Equal(t, seenCopy, seen.Float64s(), "x's gradient does not share the hook's storage")
	})

	t.Run("AllNodes keeps the inner cotangents apart", func(t *testing.T) {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(newX())
		out, d := lseParts(tp, x)
		g, err := tp.Backward(out, core.AllNodes())
		require.NoError(t, err)
		gx, _ := g.Of(x)
		gd, ok := g.Of(d)
		require.True(t, ok)
		before := append([]float64(nil), gd.Float64s()...)
		gx.Float64s()[0] = 42
		assert.Equal(t, before, gd.Float64s(), "x's gradient does not share d's cotangent")
	})

	t.Run("one cotangent passed to two inputs", func(t *testing.T) {
		// u = x + x: add passes its cotangent to both operands, so neither owns
		// it; out = max u + sum exp u, d out / dx = 2 (onehot/2 at the ties + exp 2x).
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(newX())
		u := tp.Apply(elementwise.AddOp, x, x)
		out := tp.Apply(elementwise.AddOp, tp.Apply(reduce.MaxOp(nil, false), u),
			tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.ExpOp, u)))
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		for i, v := range xs {
			w := 2 * math.Exp(2*v)
			if v == 2 {
				w += 1 // 2 * 1/2
			}
			assert.InDelta(t, w, gx.Float64s()[i], 1e-12*math.Abs(w), "element %d", i)
		}
	})
}

// viewOp is y = x (a copy) whose fresh rule returns, when the cotangent is all
// ones, the input's value (in = true) or the output's (in = false) as x's
// cotangent: views of values the rule was given, which FreshStorage allows and
// which the sweep must never own.
type viewOp struct{ in bool }

func (viewOp) Name() string    { return "test_view" }
func (viewOp) NumOutputs() int { return 1 }
func (o viewOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	y[0] = x[0].Clone()
	return &viewRule{in: in[:1:1], x: x[0], y: y[0], useIn: o.in}, nil
}

type viewRule struct {
	in    []cr.NodeID
	x, y  *tensor.Dense
	useIn bool
}

func (*viewRule) FreshStorage()         {}
func (r *viewRule) Inputs() []cr.NodeID { return r.in }
func (r *viewRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := ybar[0].Float64s()
	ones, xOnes := true, true
	for i, v := range g {
		ones = ones && v == 1
		xOnes = xOnes && r.x.Float64s()[i] == 1
	}
	v := ybar[0].Clone()
	switch {
	case ones && xOnes && r.useIn:
		v = r.x
	case ones && xOnes:
		v = r.y
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: v}), nil
}

// TestOwnedContributionsNotGiven checks that a contribution that is a view of a
// value the rule was given (its input, its output) or that another contribution
// shares stays borrowed: adding the max's ties into it must not write the
// recorded values nor another leaf's gradient.
func TestOwnedContributionsNotGiven(t *testing.T) {
	for _, useIn := range []bool{true, false} {
		t.Run(map[bool]string{true: "input", false: "output"}[useIn], func(t *testing.T) {
			// x is all ones, so the view's pullback of the sum's ones returns
			// x (or y); max x has six ties.
			xv := tensor.Ones(tensor.Float64, 6)
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			x := tp.Leaf(xv)
			y := tp.Apply(viewOp{in: useIn}, x)
			// The contribution of sum(y) is a broadcast one, which the view's
			// pullback sees as all ones.
			out := tp.Apply(elementwise.AddOp, tp.Apply(reduce.SumOp(nil, false), y), tp.Apply(reduce.MaxOp(nil, false), x))
			g, err := tp.Backward(out)
			require.NoError(t, err)
			gx, _ := g.Of(x)
			for _, v := range gx.Float64s() {
				assert.InDelta(t, 1+1.0/6, v, 1e-15)
			}
			yv, err := tp.Value(y)
			require.NoError(t, err)
			assert.Equal(t, []float64{1, 1, 1, 1, 1, 1}, xv.Float64s(), "the leaf's value is unchanged")
			assert.Equal(t, []float64{1, 1, 1, 1, 1, 1}, yv.Float64s(), "the recorded output is unchanged")
		})
	}

	t.Run("one cotangent to two leaves", func(t *testing.T) {
		// out = sum exp(x + y) + max x: add passes exp's (owned) cotangent to
		// both x and y, so neither may own it; x's ties go into a copy.
		xs := []float64{0.5, -1, 2, 0.25, 2, -3}
		ys := []float64{1, 0, -1, 0.5, 0, 2}
		xv, _ := tensor.FromFloat64(append([]float64(nil), xs...), 6)
		yv, _ := tensor.FromFloat64(append([]float64(nil), ys...), 6)
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x, y := tp.Leaf(xv), tp.Leaf(yv)
		u := tp.Apply(elementwise.AddOp, x, y)
		out := tp.Apply(elementwise.AddOp, tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.ExpOp, u)),
			tp.Apply(reduce.MaxOp(nil, false), x))
		g, err := tp.Backward(out)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		gy, _ := g.Of(y)
		for i := range xs {
			e := math.Exp(xs[i] + ys[i])
			wx := e
			if xs[i] == 2 {
				wx += 0.5
			}
			assert.InDelta(t, wx, gx.Float64s()[i], 1e-12*wx, "x, element %d", i)
			assert.InDelta(t, e, gy.Float64s()[i], 1e-12*e, "y, element %d", i)
		}
	})
}

package index_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestSplitErrors(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(7, 7)), tensor.Float64, 3, 4)
	inv := cr.ErrInvalidArgument
	cases := []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		inputs []*tensor.Dense
		says   []string
	}{
		{"huge sizes", index.SplitOp(1, []int{math.MaxInt, math.MaxInt, 2}), []*tensor.Dense{x}, []string{"split", "exceed"}},
		{"sizes", index.SplitOp(1, []int{1, 2}), []*tensor.Dense{x}, []string{"split", "axis 1", "add up to 3", "size 4"}},
		{"negative", index.SplitOp(0, []int{3, -1}), []*tensor.Dense{x}, []string{"split", "negative size -1"}},
		{"no sizes", index.SplitOp(0, nil), []*tensor.Dense{x}, []string{"split", "no sizes"}},
		{"axis", index.SplitOp(2, []int{4}), []*tensor.Dense{x}, []string{"split", "axis 2", "rank 2"}},
		{"scalar", index.SplitOp(0, []int{1}), []*tensor.Dense{tensor.Scalar(1)}, []string{"split", "rank 0"}},
		{"no input", index.SplitOp(0, []int{3}), nil, []string{"split", "0 inputs"}},
		{"nil input", index.SplitOp(0, []int{3}), []*tensor.Dense{nil}, []string{"split", "nil"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ys := make([]*tensor.Dense, c.op.NumOutputs())
			var err error
			require.NotPanics(t, func() { _, err = c.op.Apply(ids(len(c.inputs)), c.inputs, ys) })
			require.Error(t, err)
			for _, y := range ys {
				assert.Nil(t, y)
			}
			assert.True(t, errors.Is(err, inv), "%v does not wrap %v", err, inv)
			for _, s := range c.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// The blocks are views of x holding Narrow's elements.
func TestSplitViews(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 9)), tensor.Complex128, 2, 5, 3)
	sizes := []int{2, 0, 3}
	ys, err := index.Split(x, -2, sizes...)
	require.NoError(t, err)
	require.Len(t, ys, 3)
	assert.Equal(t, 3, index.SplitOp(1, sizes).NumOutputs())
	start := 0
	for k, y := range ys {
		want, err := index.Narrow(x, 1, start, sizes[k])
		require.NoError(t, err)
		assert.True(t, tensor.EqualApprox(want, y, 0, 0), "block %d: %v, want %v", k, y, want)
		if sizes[k] > 0 {
			assert.Equal(t, x.Strides(), y.Strides(), "block %d is not a view", k)
			assert.Equal(t, start*x.Strides()[1], y.Offset(), "block %d", k)
		}
		start += sizes[k]
	}
}

// TestSplitLinearIdentities checks the rules of every registry sample exactly: the
// tangents are the blocks of the input tangent, the pullback of any set of present
// cotangents puts each into its block of zeros (absent ones are nil and never read),
// and the second-order rule is the pullback of the values and of the tangents.
func TestSplitLinearIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sp := tensor.Space{}
	e, ok := ourRegistry(t).Lookup("split")
	require.True(t, ok)
	for _, s := range e.Samples(rng) {
		t.Run(s.Name, func(t *testing.T) {
			require.Greater(t, s.Op.NumOutputs(), 0)
			in := ids(1)
			x := s.Inputs[0]
			ys := make([]*tensor.Dense, s.Op.NumOutputs())
			rule, err := s.Op.Apply(in, s.Inputs, ys)
			require.NoError(t, err)
			m := len(ys)
			axis := splitAxis(t, x, ys)
			v := sp.Rand(x, rng)
			of := func(id cr.NodeID) (*tensor.Dense, bool) { return v, id == in[0] }
			ydot, has := make([]*tensor.Dense, m), make([]bool, m)
			require.NoError(t, rule.(cr.ForwardRule[*tensor.Dense]).Forward(of, ydot, has))
			vs := make([]*tensor.Dense, m)
			_, err = s.Op.Apply(in, []*tensor.Dense{v}, vs)
			require.NoError(t, err)
			for k := range m {
				require.True(t, has[k])
				require.True(t, tensor.EqualApprox(vs[k], ydot[k], 0, 0))
			}

			// Every non-empty set of present outputs.
			for mask := 1; mask < 1<<m; mask++ {
				ybar, ybardot := make([]*tensor.Dense, m), make([]*tensor.Dense, m)
				present := make([]bool, m)
				ct := make([]cr.Dual[*tensor.Dense], m)
				// S^T puts each block in its place: the concatenation of the present
				// cotangents with zeros for the absent ones.
				blocks, dblocks := make([]*tensor.Dense, m), make([]*tensor.Dense, m)
				for k := range m {
					blocks[k], dblocks[k] = sp.Zero(ys[k]), sp.Zero(ys[k])
					if mask&(1<<k) == 0 {
						continue
					}
					present[k] = true
					ybar[k], ybardot[k] = sp.Rand(ys[k], rng), sp.Rand(ys[k], rng)
					ct[k] = cr.Dual[*tensor.Dense]{Value: ybar[k], Tangent: ybardot[k], HasTangent: true}
					blocks[k], dblocks[k] = ybar[k], ybardot[k]
				}
				want, err := index.Concat(axis, blocks...)
				require.NoError(t, err)
				wantDot, err := index.Concat(axis, dblocks...)
				require.NoError(t, err)
				cs, err := rule.Pullback(ybar, present, nil)
				require.NoError(t, err)
				require.Len(t, cs, 1)
				require.Equal(t, in[0], cs[0].Node)
				require.True(t, tensor.EqualApprox(want, cs[0].Value, 0, 0), "mask %b: %v, want %v", mask, cs[0].Value, want)
				// <ybar, J v> = <J^* ybar, v>.
				lhs := 0.0
				for k := range m {
					if present[k] {
						lhs += inner(t, ybar[k], vs[k])
					}
				}
				require.InDelta(t, lhs, inner(t, cs[0].Value, v), 1e-12*(1+abs(lhs)))

				outs := make([]cr.Dual[*tensor.Dense], m)
				for k := range m {
					outs[k] = cr.Dual[*tensor.Dense]{Value: ys[k], Tangent: ydot[k], HasTangent: has[k]}
				}
				ds, err := rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(
					cr.SecondOrderArgs[*tensor.Dense]{Cotangents: ct, Has: present, Outputs: outs, TangentOf: of}, nil)
				require.NoError(t, err)
				require.Len(t, ds, 1)
				require.True(t, tensor.EqualApprox(want, ds[0].Cotangent.Value, 0, 0))
				require.True(t, ds[0].Cotangent.HasTangent)
				require.True(t, tensor.EqualApprox(wantDot, ds[0].Cotangent.Tangent, 0, 0))
			}
		})
	}
}

// splitAxis returns the axis along which the blocks ys of x were cut: the one whose
// block sizes add up to x's (any such axis when there is one block).
func splitAxis(t *testing.T, x *tensor.Dense, ys []*tensor.Dense) int {
	t.Helper()
	for a, n := range x.Shape() {
		total := 0
		for _, y := range ys {
			total += y.Shape()[a]
		}
		if total == n {
			return a
		}
	}
	t.Fatalf("no split axis for %v", x.Shape())
	return -1
}

// Cotangents and tangents of the wrong shape or dtype are errors, not panics; an
// absent cotangent may be nil.
func TestSplitRuleInputErrors(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	ys := make([]*tensor.Dense, 2)
	rule, err := index.SplitOp(1, []int{1, 2}).Apply(ids(1), []*tensor.Dense{x}, ys)
	require.NoError(t, err)
	good := tensor.New(tensor.Float64, 2, 2)
	for _, bad := range []*tensor.Dense{nil, tensor.New(tensor.Float64, 2, 1), tensor.New(tensor.Complex128, 2, 2)} {
		_, err := rule.Pullback([]*tensor.Dense{nil, bad}, []bool{false, true}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
			Cotangents: []cr.Dual[*tensor.Dense]{{}, {Value: good, Tangent: bad, HasTangent: true}},
			Has:        []bool{false, true},
			Outputs:    []cr.Dual[*tensor.Dense]{{Value: ys[0]}, {Value: ys[1]}},
		}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	}
	cs, err := rule.Pullback([]*tensor.Dense{nil, good}, []bool{false, true}, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3}, cs[0].Value.Shape())
	for _, bad := range []*tensor.Dense{nil, tensor.New(tensor.Float64, 3, 2), tensor.New(tensor.Complex128, 2, 3)} {
		err := rule.(cr.ForwardRule[*tensor.Dense]).Forward(func(cr.NodeID) (*tensor.Dense, bool) { return bad, true },
			make([]*tensor.Dense, 2), make([]bool, 2))
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	}
	_, err = rule.Pullback([]*tensor.Dense{good}, []bool{true}, nil)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// A real cotangent or tangent of a complex split is promoted.
func TestSplitPromotes(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := tensor.RandN(rng, tensor.Complex128, 4)
	rule, err := index.SplitOp(0, []int{1, 3}).Apply(ids(1), []*tensor.Dense{x}, make([]*tensor.Dense, 2))
	require.NoError(t, err)
	ybar := tensor.RandN(rng, tensor.Float64, 3)
	cs, err := rule.Pullback([]*tensor.Dense{nil, ybar}, []bool{false, true}, nil)
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, cs[0].Value.DType())
	assert.Equal(t, append([]complex128{0}, ybar.AsComplex().Complex128s()...), cs[0].Value.Complex128s())
	ydot, has := make([]*tensor.Dense, 2), make([]bool, 2)
	v := tensor.RandN(rng, tensor.Float64, 4)
	require.NoError(t, rule.(cr.ForwardRule[*tensor.Dense]).Forward(
		func(cr.NodeID) (*tensor.Dense, bool) { return v, true }, ydot, has))
	assert.Equal(t, tensor.Complex128, ydot[1].DType())
}

// The checker, with the full Jacobian, on a split whose outputs are used in every
// combination.
func TestSplitRuletest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		ruletest.Check(t, tensor.Space{}, index.SplitOp(1, []int{1, 2, 0}), []*tensor.Dense{tensor.RandN(rng, dt, 2, 3)},
			ruletest.Config{FullJacobianMaxSize: 24})
	}
}

// On a tape: a loss that uses only some blocks gets the gradient with zeros in the
// others, and the Hessian-vector product of a loss nonlinear in the blocks matches
// finite differences of the gradient.
func TestSplitOnTape(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	xv := tensor.RandN(rng, tensor.Float64, 6)
	// f(x) = sum(x[0:2]^2) + sum(x[5:6]^4) uses blocks 0 and 2 of (2, 3, 1).
	f := func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
		b := index.ApplySplit(tp, x, 0, 2, 3, 1)
		return tp.Apply(addOp, tp.Apply(sumOp, tp.Apply(squareOp, b[0])),
			tp.Apply(sumOp, tp.Apply(squareOp, tp.Apply(squareOp, b[2]))))
	}
	grad := func(v *tensor.Dense) *tensor.Dense {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(v)
		g, err := tp.Backward(f(tp, x))
		require.NoError(t, err)
		gx, ok := g.Of(x)
		require.True(t, ok)
		return gx
	}
	x := xv.Float64s()
	want, _ := tensor.FromFloat64([]float64{2 * x[0], 2 * x[1], 0, 0, 0, 4 * x[5] * x[5] * x[5]}, 6)
	got := grad(xv)
	assert.True(t, tensor.EqualApprox(want, got, 1e-14, 1e-14), "got %v, want %v", got, want)

	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xid := tp.Leaf(xv)
	out := f(tp, xid)
	require.NoError(t, tp.Err())
	dir := tensor.RandN(rng, tensor.Float64, 6)
	tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{xid: dir})
	require.NoError(t, err)
	_, hv, err := tp.BackwardWithTangents(out, tan)
	require.NoError(t, err)
	hx, ok := hv.Of(xid)
	require.True(t, ok)
	const h = 1e-5
	plus, err := tensor.AddScaled(xv, h, dir)
	require.NoError(t, err)
	minus, err := tensor.AddScaled(xv, -h, dir)
	require.NoError(t, err)
	gp, gm := grad(plus), grad(minus)
	for i := range 6 {
		fd := (gp.Float64s()[i] - gm.Float64s()[i]) / (2 * h)
		assert.InDelta(t, fd, hx.Float64s()[i], 1e-7, "element %d", i)
	}
}

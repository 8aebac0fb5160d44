package core_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// selfRule is a broken rule whose Inputs grow, after it was recorded, to name the
// node it differentiates, and whose pullback sends a cotangent to that node.
type selfRule struct {
	in   []cr.NodeID
	self cr.NodeID
}

func (r *selfRule) Inputs() []cr.NodeID {
	if r.self.Valid() {
		return append(r.in[:1:1], r.self)
	}
	return r.in
}

func (r *selfRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: ybar[0]},
		cr.Contribution[float64]{Node: r.self, Value: ybar[0]}), nil
}

// A contribution to the node being swept (not recorded before it) is refused,
// even when the rule lists that node among its inputs.
func TestContributionToTheNodeItselfIsRefused(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(2)
	r := &selfRule{in: []cr.NodeID{x}}
	y := tp.Record("self", 2, r)
	require.NoError(t, tp.Err())
	r.self = y
	_, err := tp.Backward(y)
	assert.ErrorIs(t, err, cr.ErrMissingNode)
}

// A multi-output op that a tangent reaches only through its inputs (the seed at
// its output carries none) runs its second-order rule: the Hessian of
// x = r cos th is [[0, -s], [-s, -r c]].
func TestMultiOutputSecondOrderFromInputTangentsOnly(t *testing.T) {
	const r0, th0, vr, vt = 2.0, 0.5, 0.7, -0.3
	tape := newTape()
	r, th := tape.Leaf(r0), tape.Leaf(th0)
	o := tape.ApplyMulti(toXY{}, r, th)
	require.NoError(t, tape.Err())
	tan, err := tape.ForwardTangents(map[cr.NodeID]float64{r: vr, th: vt})
	require.NoError(t, err)
	_, hv, err := tape.BackwardWithTangents(o[0], tan)
	require.NoError(t, err)
	s, c := math.Sincos(th0)
	hr, ok := hv.Of(r)
	require.True(t, ok, "H v has a component for r")
	ht, ok := hv.Of(th)
	require.True(t, ok, "H v has a component for th")
	assert.InDelta(t, -s*vt, hr, 1e-14)
	assert.InDelta(t, -s*vr-r0*c*vt, ht, 1e-14)
}

// A leaf that gets both a dense cotangent the engine borrowed (the seed itself,
// passed through by a linear rule) and row-sparse terms (an index_select along
// axis 0) gets their sum in storage of its own: making it dense never writes into
// the seed.
func TestRowTermsNeverWriteIntoABorrowedCotangent(t *testing.T) {
	tp := newTensorTape()
	w := tp.Leaf(tensor.Ones(tensor.Float64, 2, 3))
	sel := tp.Apply(index.IndexSelectOp(0, 1, 0), w)
	y := tp.Apply(linOp(1, 2), w, sel) // ybar reaches w unchanged (aliased), sel as 2 ybar
	require.NoError(t, tp.Err())
	s, err := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	g, err := tp.BackwardSeed(y, s)
	require.NoError(t, err)
	gw, ok := g.Of(w)
	require.True(t, ok)
	// w + 2 w[[1, 0]]: row 0 of the cotangent gets s[0] + 2 s[1], row 1 s[1] + 2 s[0].
	assert.Equal(t, []float64{9, 12, 15, 6, 9, 12}, gw.Contiguous().Float64s())
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, s.Float64s(), "the seed was modified")
}

// A hook that returns a cotangent shaped unlike the node's value is an error
// wrapping ErrShapeMismatch that names the hook, in first- and second-order sweeps,
// also on a leaf (where no pullback would catch it).
func TestHookResultOfTheWrongShapeIsRefused(t *testing.T) {
	tp := newTensorTape()
	x := tp.Leaf(tensor.Ones(tensor.Float64, 3))
	y := tp.Apply(linOp(1), x)
	require.NoError(t, tp.AddHook(x, func(*tensor.Dense) (*tensor.Dense, error) {
		return tensor.Ones(tensor.Float64, 2), nil
	}))
	_, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 3))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.ErrorContains(t, err, "hook")

	tp = newTensorTape()
	x = tp.Leaf(tensor.Ones(tensor.Float64, 3))
	y = tp.Apply(linOp(1), x)
	require.NoError(t, tp.AddDualHook(x, func(ct cr.Dual[*tensor.Dense]) (cr.Dual[*tensor.Dense], error) {
		ct.Tangent = tensor.Ones(tensor.Float64, 4)
		return ct, nil
	}))
	tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: tensor.Ones(tensor.Float64, 3)})
	require.NoError(t, err)
	ones := tensor.Ones(tensor.Float64, 3)
	_, _, err = tp.BackwardWithTangentsSeed(y, cr.Dual[*tensor.Dense]{Value: ones, Tangent: ones, HasTangent: true}, tan)
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.ErrorContains(t, err, "hook")
}

// tangentAll wraps toXY's rule and also reports a tangent for its
// non-differentiable output q.
type tangentAll struct{ toXY }

func (o tangentAll) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	r, err := o.toXY.Apply(in, x, y)
	if err != nil {
		return nil, err
	}
	return tangentAllRule{r.(*toXYRule)}, nil
}

type tangentAllRule struct{ *toXYRule }

func (r tangentAllRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	if err := r.toXYRule.Forward(tan, ydot, has); err != nil || !has[0] {
		return err
	}
	ydot[2], has[2] = 5, true
	return nil
}

// A tangent a rule reports for an output that carries no derivative is dropped:
// the output is a constant, and no op that reads it sees a tangent.
func TestTangentOfANonDifferentiableOutputIsDropped(t *testing.T) {
	tape := newTape()
	r, th := tape.Leaf(2), tape.Leaf(0.5)
	o := tape.ApplyMulti(tangentAll{}, r, th)
	z := tape.Apply(mulOp, o[2], o[2])
	require.NoError(t, tape.Err())
	tan, err := tape.ForwardTangents(map[cr.NodeID]float64{r: 1, th: 1})
	require.NoError(t, err)
	_, ok := tan.Of(o[2])
	assert.False(t, ok, "the non-differentiable output got a tangent")
	_, ok = tan.Of(z)
	assert.False(t, ok, "an op reading only the non-differentiable output got a tangent")
	_, ok = tan.Of(o[0])
	assert.True(t, ok)
}

// paramMul is y = x0 x1 with x1 a parameter (NonDifferentiable), whose pullback
// still records a node for x1: the op's forward tangent and second-order rule must
// ignore the tangent of x1.
var paramMul = core.Define(core.Def[float64]{Name: "param_mul", Space: f64, Arity: 2, NonDifferentiable: []int{1},
	Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[1]}, nil },
	Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(mulOp, x[1], ybar[0]), t.Apply(mulOp, x[0], ybar[0])}
	}})

func TestDefinedOpIgnoresTheTangentOfANonDifferentiableInput(t *testing.T) {
	tp := newTape()
	a, b := tp.Leaf(3), tp.Leaf(5)
	y := tp.Apply(paramMul, a, b)
	require.NoError(t, tp.Err())
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{a: 2, b: 7})
	require.NoError(t, err)
	yd, ok := tan.Of(y)
	require.True(t, ok)
	assert.Equal(t, 5.0*2, yd, "dy = x1 dx0 only")
	g, err := tp.Backward(y)
	require.NoError(t, err)
	_, ok = g.Of(b)
	assert.False(t, ok, "the parameter gets no cotangent")
}

// A composite with several outputs, of which the loss uses one: the unused
// output's absent cotangent (a nil tensor) seeds nothing in the inner sweep.
func TestCompositeWithAnUnusedOutput(t *testing.T) {
	two := core.Composite("two", tensor.Space{}, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(linOp(1), x[0]), t.Apply(linOp(2), x[0])}
	}, core.Outputs(2))
	for _, used := range []int{0, 1} {
		tp := newTensorTape()
		x := tp.Leaf(tensor.Ones(tensor.Float64, 3))
		ys := tp.ApplyMulti(two, x)
		require.NoError(t, tp.Err())
		seed, err := tensor.FromFloat64([]float64{1, 2, 3}, 3)
		require.NoError(t, err)
		g, err := tp.BackwardSeed(ys[used], seed)
		require.NoError(t, err, "output %d", used)
		gx, ok := g.Of(x)
		require.True(t, ok)
		scale := float64(used + 1)
		assert.Equal(t, []float64{scale, 2 * scale, 3 * scale}, gx.Contiguous().Float64s())
	}
}

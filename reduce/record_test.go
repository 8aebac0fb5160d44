package reduce_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every reduction records its pullback, the nonlinear ones (logsumexp, prod, var,
// std) with the package's internal op set, which is closed under recording: the
// recipe of recordtest.CheckOp, to the fourth order, on every registry sample
// (float64 and complex128 where the family takes it).
func TestRecordedPullbackSamples(t *testing.T) {
	recordtest.CheckFamilies(t, reduce.Register, rand.New(rand.NewPCG(41, 42)), orderErrors)
}

// orderErrors lists the families of the package whose derivatives stop at some
// order (GradGraph returns an *cr.OrderError there), with that order: none.
var orderErrors = map[string]int{}

// directional returns f(x) and its first n derivatives along u at x, each by a
// recorded sweep of the one before (the gradient contracted with u).
func directional(t *testing.T, f func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID, x, u *tensor.Dense, n int) []float64 {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xl := tp.Leaf(x)
	cur := f(tp, xl)
	out := []float64{recordtest.Value(t, tp, cur).AtFloat64()}
	for range n {
		g, err := tp.GradGraph(cur, xl)
		require.NoError(t, err)
		cur = tp.Apply(recordtest.DotOp(u), g[0])
		require.NoError(t, tp.Err())
		out = append(out, recordtest.Value(t, tp, cur).AtFloat64())
	}
	return out
}

// Closed forms to the fourth order, at points where the nonlinear reductions have
// their special cases: zeros in a product, a constant lane for std.
func TestRecordedClosedForms(t *testing.T) {
	vec := func(v ...float64) *tensor.Dense {
		x, err := tensor.FromFloat64(v, len(v))
		require.NoError(t, err)
		return x
	}
	op := func(o cr.Op[*tensor.Dense]) func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
		return func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return tp.Apply(o, x) }
	}
	check := func(name string, got, want []float64, tol float64) {
		t.Helper()
		for k := range want {
			require.InDelta(t, want[k], got[k], tol, "%s: derivative %d", name, k)
		}
	}

	// logsumexp([x, c]) = c + softplus(x - c): derivatives s, s(1-s), s(1-s)(1-2s),
	// s(1-s)(1-6s+6s^2) with s the logistic sigmoid of x - c.
	x0, c := 0.3, -0.4
	s := 1 / (1 + math.Exp(-(x0 - c)))
	check("logsumexp", directional(t, op(reduce.LogSumExpOp(nil, false)), vec(x0, c), vec(1, 0), 4),
		[]float64{c + math.Log1p(math.Exp(x0-c)), s, s * (1 - s), s * (1 - s) * (1 - 2*s), s * (1 - s) * (1 - 6*s + 6*s*s)}, 1e-14)

	// prod([x, x, x, a]) along (1, 1, 1, 0) at x = 0: (e)^3 a, derivatives 0, 0, 6a, 0.
	a := 1.7
	check("prod at zeros", directional(t, op(reduce.ProdOp(nil, false)), vec(0, 0, 0, a), vec(1, 1, 1, 0), 4),
		[]float64{0, 0, 0, 6 * a, 0}, 1e-14)
	// Along (1, 0, 0, 0) it is linear: a derivative of a * 0 * 0 only.
	check("prod at zeros, one direction", directional(t, op(reduce.ProdOp(nil, false)), vec(0, 0, 0, a), vec(1, 0, 0, 0), 3),
		[]float64{0, 0, 0, 0}, 0)

	// var([x + e, -x - e]) (biased) = (x + e)^2: derivatives 2x, 2, 0, 0 along
	// (1, -1).
	check("var", directional(t, op(reduce.VarOp(nil, 0, false)), vec(x0, -x0), vec(1, -1), 4),
		[]float64{x0 * x0, 2 * x0, 2, 0, 0}, 1e-14)
	// std of the same, |x + e|: derivatives 1, 0, 0, 0 for x > 0 (the zeros come
	// out of cancelling terms in 1/std^k, hence the looser tolerance).
	check("std", directional(t, op(reduce.StdOp(nil, 0, false)), vec(x0, -x0), vec(1, -1), 4),
		[]float64{x0, 1, 0, 0, 0}, 1e-12)
	// std at a constant lane: the gradient and every derivative of it are 0 there
	// (PyTorch's convention), in the recorded sweeps as in the second-order rule.
	check("std at a constant lane", directional(t, op(reduce.StdOp(nil, 1, false)), vec(2, 2, 2), vec(0.3, -1, 0.5), 4),
		[]float64{0, 0, 0, 0, 0}, 0)
}

// stripped is an op whose rule keeps every rule of op's but the recorded pullback,
// as an op without one would be.
type stripped struct{ cr.Op[*tensor.Dense] }

type hvpRule interface {
	cr.Rule[*tensor.Dense]
	cr.ForwardRule[*tensor.Dense]
	cr.SecondOrderRule[*tensor.Dense]
}

func (o stripped) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	r, err := o.Op.Apply(in, x, y)
	if err != nil {
		return nil, err
	}
	return struct{ hvpRule }{r.(hvpRule)}, nil
}

// The recipe's OrderError branch, on a logsumexp stripped of its recorded pullback:
// GradGraph names the op and order 2, and the second-order rule still works.
func TestRecordedOrderErrorReported(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := tensor.RandN(rng, tensor.Float64, 3, 4)
	recordtest.CheckOp(t, rng, stripped{reduce.LogSumExpOp([]int{1}, false)}, []*tensor.Dense{x}, 1)
}

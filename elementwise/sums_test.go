package elementwise_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// exp's PullbackSum hands the sum of its cotangent, bit for bit SumOf's, for a
// dense cotangent and for a uniform one (a sum's cotangent broadcast, the
// vmath.ScaleSum path), including a sum of -0 (SumOf adds into a zero: +0), at
// lengths around the 8-element blocks; the cotangent equals Pullback's.
func TestExpPullbackSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sp := tensor.Space{}
	for _, n := range []int{1, 7, 8, 9, 2500} {
		x := tensor.RandN(rng, tensor.Float64, n)
		in := []cr.NodeID{cr.NewNodeID(1, 0)}
		ys := make([]*tensor.Dense, 1)
		r, err := elementwise.ExpOp.Apply(in, []*tensor.Dense{x}, ys)
		require.NoError(t, err)
		sr := r.(cr.SumPullbackRule[*tensor.Dense])
		c, _ := tensor.FromFloat64([]float64{-0.75}, 1)
		negZero, _ := tensor.FromFloat64([]float64{math.Copysign(0, -1)}, 1)
		uni, err := c.BroadcastTo(n)
		require.NoError(t, err)
		uniZero, err := negZero.BroadcastTo(n)
		require.NoError(t, err)
		for name, ybar := range map[string]*tensor.Dense{"dense": tensor.RandN(rng, tensor.Float64, n), "uniform": uni, "uniform -0": uniZero} {
			want, err := r.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil)
			require.NoError(t, err)
			got, sums, err := sr.PullbackSum(ybar, cr.CotangentSum{}, nil, nil)
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Len(t, sums, 1)
			require.Equal(t, want[0].Value.Float64s(), got[0].Value.Float64s(), "%s n=%d", name, n)
			s, ok := sp.SumOf(got[0].Value)
			require.True(t, ok)
			require.True(t, sums[0].Known, "%s n=%d", name, n)
			require.Equal(t, math.Float64bits(s), math.Float64bits(sums[0].Value), "%s n=%d: sum %v, SumOf %v", name, n, sums[0].Value, s)
		}
	}
}

// The difference x - a with a scalar a (lse's x - max x) takes a's cotangent
// -sum_i dbar_i from a known sum, and gets exactly Pullback's; x's cotangent,
// dbar itself, keeps the sum. ruletest's sums check on the broadcast shapes.
func TestSubPullbackSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sp := tensor.Space{}
	for _, bShape := range [][]int{{}, {1}, {1, 1}} {
		x := tensor.RandN(rng, tensor.Float64, 3, 5)
		a := tensor.RandN(rng, tensor.Float64, bShape...)
		ruletest.Check(t, sp, elementwise.SubOp, []*tensor.Dense{x, a}, ruletest.Config{})
		ruletest.Check(t, sp, elementwise.AddOp, []*tensor.Dense{a, x}, ruletest.Config{})

		in := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
		r, err := elementwise.SubOp.Apply(in, []*tensor.Dense{x, a}, make([]*tensor.Dense, 1))
		require.NoError(t, err)
		ybar := tensor.RandN(rng, tensor.Float64, 3, 5)
		want, err := r.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil)
		require.NoError(t, err)
		s, _ := sp.SumOf(ybar)
		got, sums, err := r.(cr.SumPullbackRule[*tensor.Dense]).PullbackSum(ybar, cr.CotangentSum{Value: s, Known: true}, nil, nil)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Same(t, ybar, got[0].Value)
		require.Equal(t, cr.CotangentSum{Value: s, Known: true}, sums[0])
		require.Equal(t, want[1].Value.Shape(), got[1].Value.Shape())
		require.Equal(t, math.Float64bits(want[1].Value.Float64s()[0]), math.Float64bits(got[1].Value.Float64s()[0]))
		require.Equal(t, -s, got[1].Value.Float64s()[0], "a's cotangent is -sum, read from the known sum")
		require.False(t, sums[1].Known)
		// The sum is read, not recomputed: a (deliberately false) sum of 7 gives -7.
		got, _, err = r.(cr.SumPullbackRule[*tensor.Dense]).PullbackSum(ybar, cr.CotangentSum{Value: 7, Known: true}, nil, nil)
		require.NoError(t, err)
		require.Equal(t, -7.0, got[1].Value.Float64s()[0])
	}
}

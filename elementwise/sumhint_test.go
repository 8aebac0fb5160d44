package elementwise_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The sum exp's pullback leaves for the difference before it (a log-sum-exp's
// x - a): the cotangent of a is -sum exp(x - a) / s bit for bit as the sum the
// difference would compute, and a second use of x - a, whose cotangent the sweep
// adds to exp's, is not lost (the recorded sum is dropped when the sweep adds into
// the cotangent in place). Long vectors (the sum is left from 256 elements) and
// short ones.
func TestExpSumHint(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{100, 300, 5000} {
		xs := make([]float64, n)
		ws := make([]float64, n)
		for i := range xs {
			xs[i], ws[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		for _, c := range []struct{ second, mulFirst bool }{{false, false}, {true, false}, {true, true}} {
			second := c.second
			x, err := tensor.FromFloat64(append([]float64(nil), xs...), n)
			require.NoError(t, err)
			a, err := tensor.FromFloat64([]float64{0.25})
			require.NoError(t, err)
			w, err := tensor.FromFloat64(append([]float64(nil), ws...), n)
			require.NoError(t, err)
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			lx, la := tp.Leaf(x), tp.Leaf(a)
			d := tp.Apply(elementwise.SubOp, lx, la)
			var out, m cr.NodeID
			if c.mulFirst { // recorded first, swept last: exp's term reaches d first
				m = tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.MulOp, d, tp.Constant(w)))
			}
			out = tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.ExpOp, d))
			if second && !c.mulFirst {
				m = tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.MulOp, d, tp.Constant(w)))
			}
			if second {
				out = tp.Apply(elementwise.AddOp, out, m)
			}
			g, err := tp.Backward(out)
			require.NoError(t, err)
			ga, ok := g.Of(la)
			require.True(t, ok)
			// d out / d a = -sum exp(x - a) (- sum w), summed here in another order.
			want := 0.0
			for i, v := range xs {
				want -= math.Exp(v - 0.25)
				if second {
					want -= ws[i]
				}
			}
			got := ga.Float64s()[0]
			require.InDelta(t, want, got, 1e-9*float64(n), "n=%d %+v", n, c)
			// The sum of the exp pullback's output, as the difference sums it.
			gx, ok := g.Of(lx)
			require.True(t, ok)
			ref, err := tensor.SumTo(gx, nil)
			require.NoError(t, err)
			require.Equal(t, math.Float64bits(-ref.Float64s()[0]), math.Float64bits(got), "n=%d %+v: a's cotangent is not -sum of x's", n, c)
		}
	}
}

package reduce_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// evalPullback applies op to x and pulls g back, returning y and xbar.
func evalPullback(t *testing.T, op cr.Op[*tensor.Dense], x, g *tensor.Dense) (y, xbar []float64) {
	out := make([]*tensor.Dense, 1)
	rule, err := op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, out)
	require.NoError(t, err)
	c, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
	require.NoError(t, err)
	require.Len(t, c, 1)
	return out[0].Float64s(), c[0].Value.Float64s()
}

// TestParallelKernelsBitIdentical checks that logsumexp, amax and amin over inputs
// large enough to be split over goroutines give, with GOMAXPROCS 4, exactly the
// outputs and pullbacks of GOMAXPROCS 1 (contiguous lanes, the last axis, and
// columns, a leading or middle axis), and that amax's pullback, on data full of
// ties and with a NaN, puts g/c at the c ties of each lane as an element loop says.
func TestParallelKernelsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		shape []int
		axis  int
	}{
		{[]int{300, 700}, 1},
		{[]int{300, 700}, 0},
		{[]int{3, 200, 300}, 1},
		{[]int{2, 70000}, 1},
	}
	for _, c := range cases {
		x := tensor.RandN(rng, tensor.Float64, c.shape...)
		xs := x.Float64s()
		for i := range xs {
			xs[i] = math.Round(4 * xs[i]) // ties in every lane
		}
		xs[len(xs)/3] = math.NaN()
		l, err := opkit.LanesOf(c.shape, c.axis)
		require.NoError(t, err)
		g := tensor.RandN(rng, tensor.Float64, l.Outer, l.Inner)
		if len(c.shape) == 3 {
			g = tensor.RandN(rng, tensor.Float64, c.shape[0], c.shape[2])
		}
		for name, op := range map[string]cr.Op[*tensor.Dense]{
			"logsumexp": reduce.LogSumExpOp([]int{c.axis}, false),
			"amax":      reduce.MaxOp([]int{c.axis}, false),
			"amin":      reduce.MinOp([]int{c.axis}, false),
		} {
			old := runtime.GOMAXPROCS(1)
			y1, xb1 := evalPullback(t, op, x, g)
			runtime.GOMAXPROCS(4)
			y4, xb4 := evalPullback(t, op, x, g)
			runtime.GOMAXPROCS(old)
			for i := range y1 {
				require.True(t, sameFloat(y1[i], y4[i]) && math.Signbit(y1[i]) == math.Signbit(y4[i]), "%s %v axis %d: output %d: %v at 1 thread, %v at 4", name, c.shape, c.axis, i, y1[i], y4[i])
			}
			for i := range xb1 {
				require.True(t, sameFloat(xb1[i], xb4[i]), "%s %v axis %d: xbar %d: %v at 1 thread, %v at 4", name, c.shape, c.axis, i, xb1[i], xb4[i])
			}
			if name != "amax" {
				continue
			}
			gs := g.Float64s()
			for o := range l.Outer * l.Inner {
				i, j := o/l.Inner, o%l.Inner
				var m float64 = math.Inf(-1)
				for k := range l.Len {
					m = max(m, xs[l.Offset(i, k, j)])
				}
				require.True(t, sameFloat(m, y4[o]), "amax %v axis %d lane %d: %v, want %v", c.shape, c.axis, o, y4[o], m)
				cnt := 0.0
				for k := range l.Len {
					if sameFloat(xs[l.Offset(i, k, j)], m) {
						cnt++
					}
				}
				for k := range l.Len {
					want := 0.0
					if sameFloat(xs[l.Offset(i, k, j)], m) {
						want = gs[o] / cnt
					}
					require.Equal(t, want, xb4[l.Offset(i, k, j)], "amax %v axis %d lane %d element %d", c.shape, c.axis, o, k)
				}
			}
		}
	}
}

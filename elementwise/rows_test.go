package elementwise_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestPullbackBroadcastRows checks that a unary op's pullback of a cotangent
// broadcast along trailing axes (a sum's over its last axes), which it reads row
// by row without expanding it, gives bit for bit the cotangent of the expanded
// (contiguous) copy, for row lengths below and above the block it expands into.
func TestPullbackBroadcastRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, c := range []struct {
		op    cr.Op[*tensor.Dense]
		shape []int
		keep  int // the leading axes the cotangent varies along
	}{
		{elementwise.SquareOp, []int{100, 7, 2}, 2},
		{elementwise.SquareOp, []int{3, 5, 10}, 1},
		{elementwise.ExpOp, []int{37, 11}, 1},
		{elementwise.TanhOp, []int{3, 700}, 1},
		{elementwise.SinOp, []int{4, 1, 9, 3}, 2},
	} {
		x := tensor.RandN(rng, tensor.Float64, c.shape...)
		y := make([]*tensor.Dense, 1)
		rule, err := c.op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, y)
		require.NoError(t, err)
		small := append([]int{}, c.shape[:c.keep]...)
		for range c.shape[c.keep:] {
			small = append(small, 1)
		}
		g, err := tensor.RandN(rng, tensor.Float64, small...).BroadcastTo(c.shape...)
		require.NoError(t, err)
		require.False(t, g.IsContiguous())
		got, err := rule.Pullback([]*tensor.Dense{g}, nil, nil)
		require.NoError(t, err)
		want, err := rule.Pullback([]*tensor.Dense{g.Contiguous()}, nil, nil)
		require.NoError(t, err)
		gv, wv := got[0].Value.Float64s(), want[0].Value.Float64s()
		require.Equal(t, len(wv), len(gv))
		for i := range wv {
			if math.Float64bits(gv[i]) != math.Float64bits(wv[i]) {
				t.Fatalf("%v %v: xbar[%d] = %v from the broadcast cotangent, %v from its copy", c.op, c.shape, i, gv[i], wv[i])
			}
		}
	}
}

// BenchmarkPullbackBroadcastRows times square's pullback of a cotangent
// broadcast along the last axis (gmm's sum over d) at n = 1000, k = 25 and
// d = 2, 10, 20.
func BenchmarkPullbackBroadcastRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(28, 2))
	for _, d := range []int{2, 10, 20} {
		x := tensor.RandN(rng, tensor.Float64, 1000, 25, d)
		y := make([]*tensor.Dense, 1)
		rule, err := elementwise.SquareOp.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, y)
		require.NoError(b, err)
		g, err := tensor.RandN(rng, tensor.Float64, 1000, 25, 1).BroadcastTo(1000, 25, d)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rule.Pullback([]*tensor.Dense{g}, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package einsum_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// With constant data, the tape tells einsum to skip the data's pullback; gradients
// and Hessian-vector products of the parameters are unchanged.
func TestMaskedSkipsConstants(t *testing.T) {
	var _ cr.MaskedOp[*tensor.Dense] = einsum.Op("ij,jk->ik").(cr.MaskedOp[*tensor.Dense])
	rng := rand.New(rand.NewPCG(1, 1))
	X, W, V := tensor.RandN(rng, tensor.Float64, 4, 3), tensor.RandN(rng, tensor.Float64, 3, 2), tensor.RandN(rng, tensor.Float64, 3, 2)
	run := func(constX bool) (*tensor.Dense, *tensor.Dense, int) {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		var x cr.NodeID
		if constX {
			x = tp.Constant(X)
		} else {
			x = tp.Leaf(X)
		}
		w := tp.Leaf(W)
		y := tp.Apply(einsum.Op("ij,jk->ik"), x, w)
		l := tp.Apply(einsum.Op("ik,ik->"), y, y)
		require.NoError(t, tp.Err())
		g, err := tp.Backward(l)
		require.NoError(t, err)
		gw, _ := g.Of(w)
		tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{w: V})
		require.NoError(t, err)
		_, hv, err := tp.BackwardWithTangents(l, tan)
		require.NoError(t, err)
		hw, _ := hv.Of(w)
		// Count the contributions the recorded product's rule returns.
		yv, _ := tp.Value(y)
		xv, _ := tp.Value(x)
		rule, err := einsum.Op("ij,jk->ik").(cr.MaskedOp[*tensor.Dense]).ApplyMasked(
			[]cr.NodeID{x, w}, []*tensor.Dense{xv, W}, make([]*tensor.Dense, 1), []bool{!constX, true})
		require.NoError(t, err)
		c, err := rule.Pullback([]*tensor.Dense{yv}, []bool{true}, nil)
		require.NoError(t, err)
		return gw, hw, len(c)
	}
	gw1, hw1, n1 := run(false)
	gw2, hw2, n2 := run(true)
	assert.Equal(t, 2, n1)
	assert.Equal(t, 1, n2, "the constant's pullback is skipped")
	assert.True(t, tensor.EqualApprox(gw1, gw2, 0, 0))
	assert.True(t, tensor.EqualApprox(hw1, hw2, 0, 0))
}

package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Causal attention and attention with a scale, whose scaling and causal mask run
// inside the softmax, against the same attention with the mask given as a
// boolean tril mask (scaling, adding the mask and softmax as separate ops):
// the outputs and the three gradients agree, with L != S (the mask's
// diagonal starts at the top left, as PyTorch's tril(ones(L, S))). The fused
// op passes ruletest and the recorded checks to order 3.
func TestAttentionFusedSoftmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const b, h, l, s, e = 2, 3, 5, 7, 4
	q, k, v := tensor.RandN(rng, tensor.Float64, b, h, l, e), tensor.RandN(rng, tensor.Float64, b, h, s, e), tensor.RandN(rng, tensor.Float64, b, h, s, 3)
	ybar := tensor.RandN(rng, tensor.Float64, b, h, l, 3)
	tril := make([]bool, l*s)
	for i := range l {
		for j := range s {
			tril[i*s+j] = j <= i
		}
	}
	all := make([]bool, l*s)
	for i := range all {
		all[i] = true
	}
	grads := func(op cr.Op[*tensor.Dense]) []*tensor.Dense {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		in := []cr.NodeID{tp.Leaf(q), tp.Leaf(k), tp.Leaf(v)}
		y := tp.Apply(op, in...)
		yv, err := tp.Value(y)
		require.NoError(t, err)
		g, err := tp.BackwardSeed(y, ybar)
		require.NoError(t, err)
		out := []*tensor.Dense{yv}
		for _, id := range in {
			gi, ok := g.Of(id)
			require.True(t, ok)
			out = append(out, gi)
		}
		return out
	}
	for _, c := range []struct {
		name         string
		fused, split cr.Op[*tensor.Dense]
	}{
		{"causal", nn.ScaledDotProductAttentionOp(nn.IsCausal()), nn.ScaledDotProductAttentionOp(nn.AttnBoolMask(tril, l, s))},
		{"causal scale 0.3", nn.ScaledDotProductAttentionOp(nn.IsCausal(), nn.AttnScale(0.3)),
			nn.ScaledDotProductAttentionOp(nn.AttnBoolMask(tril, l, s), nn.AttnScale(0.3))},
		{"scale 0.3", nn.ScaledDotProductAttentionOp(nn.AttnScale(0.3)), nn.ScaledDotProductAttentionOp(nn.AttnBoolMask(all, l, s), nn.AttnScale(0.3))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, want := grads(c.fused), grads(c.split)
			for m, what := range []string{"y", "qbar", "kbar", "vbar"} {
				require.InDeltaSlice(t, want[m].Float64s(), got[m].Float64s(), 1e-12, what)
			}
			small := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 2, 3, 2), tensor.RandN(rng, tensor.Float64, 2, 4, 2), tensor.RandN(rng, tensor.Float64, 2, 4, 2)}
			ruletest.Check(t, tensor.Space{}, c.fused, small, ruletest.Config{})
			recordtest.CheckCase(t, rng, recordtest.Case{Op: c.fused, Inputs: small, OrderAt: 4})
		})
	}
}

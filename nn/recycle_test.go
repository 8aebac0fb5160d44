package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestLayersUnderRecycling evaluates the gradient of a small conv / batch_norm /
// relu / max_pool network again and again, as a training loop does: each call
// reuses the storage of the one before (hvp's tapes release their values), and
// no returned gradient, nor the values read with Value, may change
// afterwards. Under the race detector the reused storage is filled with NaN
// first, so a rule that keeps or returns storage it does not own would show.
func TestLayersUnderRecycling(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := tensor.RandN(rng, tensor.Float64, 4, 2, 12, 12)
	w := tensor.RandN(rng, tensor.Float64, 6, 2, 3, 3)
	b := tensor.RandN(rng, tensor.Float64, 6)
	gamma := tensor.RandN(rng, tensor.Float64, 6)
	beta := tensor.RandN(rng, tensor.Float64, 6)
	rm, rv := tensor.New(tensor.Float64, 6), tensor.Ones(tensor.Float64, 6)
	var stats, acts []*tensor.Dense
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(nn.Conv2dOp(nn.Padding(1)), tp.Constant(x), p[0], p[1])
		bn := tp.ApplyMulti(nn.BatchNormOp(nn.Training(true), nn.Affine(true, true), nn.RunningStats(rm, rv)), h, p[2], p[3])
		variance, err := tp.Value(bn[2]) // the last output, which carries the rule
		require.NoError(t, err)
		stats = append(stats, variance)
		r := tp.Apply(ew.ReluOp, bn[0])
		act, err := tp.Value(r) // large enough to be pooled: kept because it was read
		require.NoError(t, err)
		acts = append(acts, act)
		m := tp.ApplyMulti(nn.MaxPool2dOp([]int{2}), r)[0]
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, m))
	}
	params := []*tensor.Dense{w, b, gamma, beta}
	var grads [][]*tensor.Dense
	var copies [][][]float64
	for range 4 {
		_, g, err := hvp.Grad(f, params)
		require.NoError(t, err)
		grads = append(grads, g)
		c := make([][]float64, len(g))
		for i, gi := range g {
			c[i] = append([]float64(nil), gi.Float64s()...)
		}
		copies = append(copies, c)
	}
	want := append([]float64(nil), stats[0].Float64s()...)
	wantAct := append([]float64(nil), acts[0].Float64s()...)
	for call, g := range grads {
		for i, gi := range g {
			require.Equal(t, copies[0][i], gi.Float64s(), "call %d, gradient %d", call, i)
		}
		require.Equal(t, want, stats[call].Float64s(), "call %d's running variance", call)
		require.Equal(t, wantAct, acts[call].Float64s(), "call %d's activation", call)
	}
}

// TestSoftmaxLossesUnderRecycling evaluates the gradient and the HVP of a function
// of softmax, log_softmax, cross_entropy, logsumexp, amax and amin again and again (hvp's tapes release
// their values, so each call reuses the storage of the one before): every call
// gives the first call's results, and no result changes afterwards. Under the
// race detector the reused storage is filled with NaN first.
func TestSoftmaxLossesUnderRecycling(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := tensor.RandN(rng, tensor.Float64, 64, 40) // 2560 elements: pooled sizes
	v := tensor.RandN(rng, tensor.Float64, 64, 40)
	labels := make([]int, 64)
	for i := range labels {
		labels[i] = rng.IntN(40)
	}
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		s := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(nn.SoftmaxOp(-1), p[0])))
		ls := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.CosOp, tp.Apply(nn.LogSoftmaxOp(1), p[0])))
		ce := tp.Apply(nn.CrossEntropyOp(labels), tp.Apply(ew.TanhOp, p[0]))
		lse := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(reduce.LogSumExpOp([]int{0}, false), p[0])))
		amax := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(reduce.MaxOp([]int{1}, false), tp.Apply(ew.MulOp, p[0], p[0]))))
		amin := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.CosOp, tp.Apply(reduce.MinOp([]int{0}, false), tp.Apply(ew.TanhOp, p[0]))))
		return tp.Apply(ew.AddOp, tp.Apply(ew.AddOp, tp.Apply(ew.AddOp, s, ls), tp.Apply(ew.AddOp, ce, lse)), tp.Apply(ew.AddOp, amax, amin))
	}
	var results []*tensor.Dense
	for range 4 {
		_, g, err := hvp.Grad(f, []*tensor.Dense{x})
		require.NoError(t, err)
		gh, hv, err := hvp.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
		require.NoError(t, err)
		results = append(results, g[0], gh[0], hv[0])
	}
	want := make([][]float64, 3)
	for i := range want {
		want[i] = append([]float64(nil), results[i].Float64s()...)
	}
	require.Equal(t, want[0], want[1], "gradient of Grad and of HVP")
	for i, r := range results {
		require.Equal(t, want[i%3], r.Float64s(), "call %d, result %d", i/3, i%3)
	}
}

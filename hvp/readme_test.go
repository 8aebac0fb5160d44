package hvp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// fitMLP is the README's parameter-set snippet: an MLP's six tensors fitted by
// Newton-CG with Gauss-Newton curvature, printing progress.
func fitMLP(W1, b1, W2, b2, W3, b3 *tensor.Dense, mlp hvp.Func, Y *tensor.Dense) ([]*tensor.Dense, error) {
	params := []*tensor.Dense{W1, b1, W2, b2, W3, b3} // any shapes
	layout, err := hvp.LayoutOf(params)
	if err != nil {
		return nil, err
	}
	obj := hvp.NewModelObjective(mlp, hvp.MSELoss(Y), layout) // loss(model(x)); or NewParamObjective(f, layout)
	x0, _ := layout.Flatten(params)                           // the flat view, once
	res, err := hvp.Minimize(obj, x0, &optimize.Settings{Recorder: hvp.NewPrinter()},
		&hvp.NewtonCG{Curvature: hvp.GaussNewtonCurvature})
	if err != nil {
		return nil, err
	}
	return layout.Unflatten(res.X) // tensors again
}

// mlp3 is a 3-layer tanh network on X with parameters (W1, b1, W2, b2, W3, b3).
func mlp3(X *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := t.Constant(X)
		for l := 0; l < 6; l += 2 {
			h = t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), h, p[l]), p[l+1])
			if l < 4 {
				h = t.Apply(ew.TanhOp, h)
			}
		}
		return h
	}
}

func TestREADMEParameterSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	X, Y := randn(rng, 6, 2), randn(rng, 6, 1)
	_, _, p := mlpProblem(13, 1, []int{2, 4, 3, 1})
	fitted, err := fitMLP(p[0], p[1], p[2], p[3], p[4], p[5], mlp3(X), Y)
	require.NoError(t, err)
	require.Len(t, fitted, 6)
	// 6 samples and 31 parameters: the fit interpolates.
	val, _, err := hvp.Grad(func(t *hvp.Tape, q []cr.NodeID) cr.NodeID { return hvp.MSELoss(Y)(t, mlp3(X)(t, q)) }, fitted)
	require.NoError(t, err)
	assert.Less(t, val.AtFloat64(), 1e-10)
}

// logisticLoss is 1/n times the logistic loss of the rows X with labels y in {-1, +1}.
func logisticLoss(X, y *tensor.Dense, n int) hvp.Func {
	negY := tensor.Scale(y, -1)
	return func(t *hvp.Tape, w []cr.NodeID) cr.NodeID {
		margins := t.Apply(ew.MulOp, t.Apply(einsum.Op("nd,d->n"), t.Constant(X), w[0]), t.Constant(negY))
		return t.Apply(ew.ScaleOp(1/float64(n)), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SoftplusOp, margins)))
	}
}

// fitSharded is the README's sharded snippet.
func fitSharded(X, y []*tensor.Dense, n, k int, layout hvp.Layout, w0 []float64) (*optimize.Result, error) {
	shards := make([]hvp.Shard, k)
	for s := range k {
		shards[s] = hvp.NewShard(logisticLoss(X[s], y[s], n), layout) // this shard's rows; 1/n of the total
	}
	obj := hvp.NewShardedObjective(layout, shards...) // f = sum_s f_s
	return hvp.Minimize(obj, w0, nil, &hvp.NewtonCG{})
}

func TestREADMESharded(t *testing.T) {
	const n, d, k = 400, 3, 4
	xs, negY := logisticData(14, n, d)
	var X, y []*tensor.Dense
	for s := range k {
		lo, hi := s*n/k, (s+1)*n/k
		Xs, err := tensor.FromFloat64(xs[lo*d:hi*d], hi-lo, d)
		require.NoError(t, err)
		ys, err := tensor.FromFloat64(negY[lo:hi], hi-lo)
		require.NoError(t, err)
		X, y = append(X, Xs), append(y, tensor.Scale(ys, -1))
	}
	layout, err := hvp.NewLayout([]int{d})
	require.NoError(t, err)
	res, err := fitSharded(X, y, n, k, layout, make([]float64, d))
	require.NoError(t, err)
	assert.NotEqual(t, optimize.Failure, res.Status)
	// The same minimum as one shard over all the rows.
	one := hvp.NewShardedObjective(layout, logisticShards(xs, negY, n, d, 1, 0)...)
	g := make([]float64, d)
	one.Grad(g, res.X)
	for i := range g {
		assert.InDelta(t, 0, g[i], 1e-9)
	}
}

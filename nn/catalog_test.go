package nn_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestMatmulRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		rn := func(s ...int) *tensor.Dense { return tensor.RandN(rng, dt, s...) }
		for _, c := range []struct {
			name string
			a, b *tensor.Dense
			want []int
		}{
			{"dot", rn(3), rn(3), []int{}},
			{"mm", rn(2, 3), rn(3, 4), []int{2, 4}},
			{"vm", rn(3), rn(2, 3, 4), []int{2, 4}},
			{"mv", rn(2, 2, 3), rn(3), []int{2, 2}},
			{"bmm broadcast", rn(2, 1, 2, 3), rn(3, 3, 4), []int{2, 3, 2, 4}},
			{"bmm 2d", rn(2, 3), rn(5, 3, 2), []int{5, 2, 2}},
		} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				y, err := nn.Matmul(c.a, c.b)
				require.NoError(t, err)
				assert.Equal(t, c.want, y.Shape())
				ruletest.Check(t, tensor.Space{}, nn.MatmulOp, []*tensor.Dense{c.a, c.b}, ruletest.Config{FullJacobianMaxSize: 120})
			})
		}
	}
	_, err := nn.Matmul(tensor.Ones(tensor.Float64, 2, 3), tensor.Ones(tensor.Float64, 2, 3))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = nn.Matmul(tensor.Scalar(1), tensor.Ones(tensor.Float64, 2))
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = nn.Matmul(tensor.Ones(tensor.Float64, 2, 2, 3), tensor.Ones(tensor.Float64, 3, 3, 2))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
}

func TestClampRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := tensor.RandN(rng, tensor.Float64, 3, 4)
	ruletest.Check(t, tensor.Space{}, nn.ClampOp(-0.5, 0.7), []*tensor.Dense{x}, ruletest.Config{})
	lo := tensor.RandUniform(rng, tensor.Float64, -1.5, -0.2, 4)
	hi := tensor.RandUniform(rng, tensor.Float64, 0.2, 1.5, 3, 1)
	ruletest.Check(t, tensor.Space{}, nn.ClampTensorOp, []*tensor.Dense{x, lo, hi}, ruletest.Config{FullJacobianMaxSize: 80})
	// lo > hi somewhere: y = hi there.
	lo2, _ := tensor.FromFloat64([]float64{-1, 2, -1, 0.3}, 4)
	ruletest.Check(t, tensor.Space{}, nn.ClampTensorOp, []*tensor.Dense{x, lo2, tensor.Scalar(0.25)}, ruletest.Config{FullJacobianMaxSize: 80})

	// At the bounds the gradient passes (PyTorch's convention).
	xb, _ := tensor.FromFloat64([]float64{-1, 0, 1, 2, math.NaN()}, 5)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xi := tp.Leaf(xb)
	y := tp.Apply(nn.ClampOp(0, 1), xi)
	g, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 5))
	require.NoError(t, err)
	gx, _ := g.Of(xi)
	assert.Equal(t, []float64{0, 1, 1, 0, 0}, gx.Float64s())
}

func TestSortRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := tensor.RandN(rng, tensor.Float64, 3, 5)
	for _, op := range []cr.Op[*tensor.Dense]{nn.SortOp(1, false), nn.SortOp(0, true), nn.TopKOp(2, 1, true), nn.TopKOp(3, -1, false), nn.TopKOp(1, 0, true)} {
		t.Run(op.Name(), func(t *testing.T) {
			ruletest.Check(t, tensor.Space{}, op, []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 80})
		})
	}
	a, _ := tensor.FromFloat64([]float64{1, 3, 3, 2, 3, math.NaN(), 1}, 7)
	v, i, err := nn.Sort(a, 0, false)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 6, 3, 1, 2, 4, 5}, i.Float64s())
	assert.True(t, math.IsNaN(v.Float64s()[6]))
	_, i, err = nn.Sort(a, 0, true)
	require.NoError(t, err)
	assert.Equal(t, []float64{5, 1, 2, 4, 3, 0, 6}, i.Float64s())
	_, i, err = nn.TopK(a, 3, 0, false)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 6, 3}, i.Float64s())
	_, _, err = nn.TopK(a, 8, 0, true)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// TestOneHotChecksLabelsFirst checks that one_hot rejects a label outside [0, C)
// before it allocates the [..., C] result: with C = 2^27 that result is 1 GiB.
func TestOneHotChecksLabelsFirst(t *testing.T) {
	const c = 1 << 27
	for _, label := range []float64{-1, c} {
		labels, err := tensor.FromFloat64([]float64{0, label}, 2)
		require.NoError(t, err)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = nn.OneHot(labels, c)
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.ErrorContains(t, err, "outside [0, 134217728)")
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated for label %v", label)
	}
}

func TestNotDifferentiable(t *testing.T) {
	x, _ := tensor.FromFloat64([]float64{1, 5, 2, 7, 0, 7}, 2, 3)
	am, err := nn.Argmax(x, 1, false)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 0}, am.Float64s())
	amin, err := nn.Argmin(x, 0, true)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3}, amin.Shape())
	assert.Equal(t, []float64{0, 1, 0}, amin.Float64s())
	oh, err := nn.OneHot(am, 3)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, 0, 1, 0, 0}, oh.Float64s())

	for _, op := range []cr.Op[*tensor.Dense]{nn.ArgmaxOp(1, false), nn.ArgminOp(0, false), nn.OneHotOp(8)} {
		t.Run(op.Name(), func(t *testing.T) {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			xi := tp.Leaf(x)
			loss := tp.Apply(reduce.SumOp(nil, false), tp.Apply(op, xi))
			require.NoError(t, tp.Err())
			_, err := tp.Backward(loss)
			require.ErrorIs(t, err, cr.ErrNoRule)
			require.ErrorContains(t, err, op.Name())
			_, err = tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{xi: x})
			require.ErrorIs(t, err, cr.ErrNoRule)
			// Under NoGrad the output is a constant, and other paths differentiate.
			tp = core.NewTape[*tensor.Dense](tensor.Space{})
			xi = tp.Leaf(x)
			var idx cr.NodeID
			tp.NoGrad(func() { idx = tp.Apply(op, xi) })
			_ = idx
			loss = tp.Apply(reduce.SumOp(nil, false), xi)
			_, err = tp.Backward(loss)
			require.NoError(t, err)
		})
	}
}

package index_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every op of the package is linear, so every one records its pullback and is
// differentiable to any order: the recipe on every registry sample (float64,
// complex128, mixed dtypes), including index_select and gather along axis 0,
// whose rules have a row-sparse pullback too, and split, a multi-output op.
func TestRecordedPullbackSamples(t *testing.T) {
	recordtest.CheckFamilies(t, index.Register, rand.New(rand.NewPCG(21, 22)), orderErrors)
}

// orderErrors lists the families of the package whose derivatives stop at some
// order (GradGraph returns an *cr.OrderError there), with that order: none.
var orderErrors = map[string]int{}

// The row-sparse rules of index_select and gather along axis 0 keep both forms: the
// row pullback and the recorded one.
func TestRecordedRowRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.RandN(rng, tensor.Float64, 5, 2)
	for _, op := range []cr.Op[*tensor.Dense]{
		index.IndexSelectOp(0, 4, 1, 4),
		index.GatherOp(0, []int{3, 0, 3, 1}, 2, 2),
	} {
		rule, err := op.Apply([]cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{x}, make([]*tensor.Dense, 1))
		require.NoError(t, err)
		_, isRows := rule.(cr.RowPullbackRule[*tensor.Dense])
		_, isRec := rule.(cr.PullbackRecorder[*tensor.Dense])
		require.True(t, isRows, op.Name())
		require.True(t, isRec, op.Name())
	}
}

// A split whose cotangents reach only some outputs records the adjoint of those
// alone (the other blocks of x's cotangent are zero), to every order: with the
// quadratic test op on the first and last blocks, the cotangents depend on x, so
// the recorded sweeps pass through split_adjoint's own recorded pullback.
func TestRecordedSplitPartial(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		X := tensor.RandN(rng, dt, 2, 6)
		U := tensor.RandN(rng, dt, 2, 6)
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(X)
		ys := index.ApplySplit(tp, x, 1, 2, 1, 3)
		y0, y2 := recordtest.Value(t, tp, ys[0]), recordtest.Value(t, tp, ys[2])
		w := recordtest.RandLike(rng, []*tensor.Dense{y0, y2})
		l := tp.Apply(recordtest.QuadOp(w), ys[0], ys[2])
		g, err := tp.GradGraph(l, x)
		require.NoError(t, err)
		name, err := tp.OpName(g[0])
		require.NoError(t, err)
		require.Equal(t, "split_adjoint", name)
		// xbar = (w_0 + y_0, 0, w_2 + y_2) blockwise.
		want := tensor.New(dt, 2, 6)
		for i := range 2 {
			for j := range 6 {
				switch {
				case j < 2:
					want.Set(w[0].At(i, j)+y0.At(i, j), i, j)
				case j >= 3:
					want.Set(w[1].At(i, j-3)+y2.At(i, j-3), i, j)
				}
			}
		}
		require.True(t, tensor.EqualApprox(want, recordtest.Value(t, tp, g[0]), 1e-14, 1e-14))
		// The Hessian is the identity on the first and last blocks, zero on the middle
		// one, at every point: H u by a recorded sweep, then a third one, which is zero.
		h, err := tp.GradGraph(tp.Apply(recordtest.DotOp(U), g[0]), x)
		require.NoError(t, err)
		hu := U.Clone()
		for i := range 2 {
			hu.Set(0, i, 2)
		}
		require.True(t, tensor.EqualApprox(hu, recordtest.Value(t, tp, h[0]), 1e-14, 1e-14))
		k, err := tp.GradGraph(tp.Apply(recordtest.DotOp(U), h[0]), x)
		require.NoError(t, err)
		require.Zero(t, recordtest.SquaredNorm(recordtest.Value(t, tp, k[0])))
	}
}

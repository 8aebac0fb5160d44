package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Recorded pullbacks (chainrules.PullbackRecorder, used by core.Tape.GradGraph):
// for each family with a hand-written rule, at the registry's samples, the
// recorded VJP must equal Pullback, its derivative by the ordinary sweeps must
// equal the second-order rule, and a third derivative by forward over reverse
// through it must match finite differences.
//
// order3 would name, per input, an op that stops a recorded sweep of the recorded
// VJP (GradGraph twice: the third derivative recorded) with a *cr.OrderError, for
// the test to assert; nil means the sweep succeeds and its values are checked. It
// is nil everywhere: softmax, log_softmax and the losses record elementwise ops,
// clamp_tensor, sort and topk linear ones (where, sums, scatter_add), and all of
// them record their own pullbacks.
var recordedFamilies = []struct {
	family string
	order3 []string // per differentiable input, the last entry standing for the rest
}{
	{"softmax", nil},
	{"log_softmax", nil},
	{"cross_entropy", nil},
	{"cross_entropy_probs", nil},
	{"nll_loss", nil},
	{"clamp_tensor", nil},
	{"sort", nil},
	{"topk", nil},
}

func TestRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, nn.Register(reg))
	rng := rand.New(rand.NewPCG(7, 11))
	for _, f := range recordedFamilies {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			t.Run(f.family+"/"+s.Name, func(t *testing.T) {
				recordtest.CheckCase(t, rng, recordtest.Case{Op: s.Op, Inputs: s.Inputs, Order3: f.order3})
			})
		}
	}
}

// Cases beyond the registry's samples: an input recorded as a constant (the rule
// leaves its cotangent out), 1-D inputs, a none reduction over k-dim rows, a 0-d
// sort, scalar bounds.
func TestRecordedPullbacksMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	f64 := func(s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	unif := func(s ...int) *tensor.Dense { return tensor.RandUniform(rng, tensor.Float64, 0, 1, s...) }
	sep := func(v ...float64) *tensor.Dense { return must(tensor.FromFloat64(v, len(v))) }
	cases := []recordtest.Case{
		{Name: "cross_entropy_probs constant targets", Op: nn.CrossEntropyProbsOp(nn.LabelSmoothing(0.1)),
			Inputs: inputs(f64(3, 4), unif(3, 4)), Consts: []bool{false, true}, Order3: nil},
		{Name: "cross_entropy_probs constant logits", Op: nn.CrossEntropyProbsOp(nn.ClassWeights(1, 2, 0.5, 3)),
			Inputs: inputs(f64(3, 4), unif(3, 4)), Consts: []bool{true, false}, Order3: nil},
		{Name: "cross_entropy_probs [4] mean", Op: nn.CrossEntropyProbsOp(), Inputs: inputs(f64(4), unif(4)), Order3: nil},
		{Name: "cross_entropy [4 3 2] none smoothing", Op: nn.CrossEntropyOp([]int{0, 2, 1, 1, 2, 0, 1, 0}, nn.WithReduction(nn.ReductionNone),
			nn.LabelSmoothing(0.25)), Inputs: inputs(f64(4, 3, 2)), Order3: nil},
		{Name: "cross_entropy [3] none", Op: nn.CrossEntropyOp([]int{1}, nn.WithReduction(nn.ReductionNone)), Inputs: inputs(f64(3)), Order3: nil},
		{Name: "nll_loss sum ignore", Op: nn.NLLLossOp([]int{0, 7, 2}, nn.IgnoreIndex(7), nn.WithReduction(nn.ReductionSum)),
			Inputs: inputs(f64(3, 4)), Order3: nil},
		{Name: "softmax axis 0", Op: nn.SoftmaxOp(0), Inputs: inputs(f64(3, 2)), Order3: nil},
		{Name: "log_softmax [5]", Op: nn.LogSoftmaxOp(-1), Inputs: inputs(f64(5)), Order3: nil},
		{Name: "sort 0-d", Op: nn.SortOp(0, false), Inputs: inputs(tensor.Scalar(0.3)), Order3: nil},
		{Name: "topk [5] k 3", Op: nn.TopKOp(3, 0, true), Inputs: inputs(sep(0.1, 0.9, -0.5, 0.4, 1.3)), Order3: nil},
		{Name: "sort [2 3 4] axis 1", Op: nn.SortOp(1, false), Inputs: inputs(separated(rng, 2, 3, 4)), Order3: nil},
		{Name: "clamp_tensor scalar bounds", Op: nn.ClampTensorOp,
			Inputs: inputs(sep(-2, -0.3, 0.2, 1.7), tensor.Scalar(-1), tensor.Scalar(1)), Order3: nil},
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { recordtest.CheckCase(t, rng, c) })
	}
}

// The mean over no weight (every label ignored) divides by zero: Pullback gives
// every ignored row a zero cotangent, and so does the recorded pullback, NaN-free.
func TestRecordedCrossEntropyAllIgnored(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, op := range []cr.Op[*tensor.Dense]{
		nn.CrossEntropyOp([]int{-100, -100}, nn.IgnoreIndex(-100)),
		nn.NLLLossOp([]int{-100, -100}, nn.IgnoreIndex(-100)),
	} {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(tensor.RandN(rng, tensor.Float64, 2, 3))
		y := tp.Apply(op, x)
		g, err := tp.GradGraph(y, x)
		require.NoError(t, err)
		ref, err := tp.Backward(y)
		require.NoError(t, err)
		want, _ := ref.Of(x)
		require.Equal(t, make([]float64, 6), want.Float64s(), op.Name())
		require.Equal(t, want.Float64s(), recordtest.Value(t, tp, g[0]).Float64s(), op.Name())
	}
}

// Sort's indices carry no cotangent, and a loss of them alone gives x none.
func TestRecordedSortValuesOnly(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(must(tensor.FromFloat64([]float64{0.5, -1, 2}, 3)))
	ys := tp.ApplyMulti(nn.SortOp(0, true), x)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(permute.ReshapeOp(-1), ys[0]))
	g, err := tp.GradGraph(y, x)
	require.NoError(t, err)
	require.Equal(t, []float64{1, 1, 1}, recordtest.Value(t, tp, g[0]).Float64s())
}

func inputs(x ...*tensor.Dense) []*tensor.Dense { return x }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// separated returns a tensor whose elements differ pairwise by at least 0.2.
func separated(rng *rand.Rand, shape ...int) *tensor.Dense {
	t := tensor.New(tensor.Float64, shape...)
	d := t.Float64s()
	for i, p := range rng.Perm(len(d)) {
		d[i] = 0.3*(float64(p)-float64(len(d))/2) + 0.05*rng.Float64()
	}
	return t
}

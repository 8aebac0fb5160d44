package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestLossRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rn := func(s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	probs := tensor.RandUniform(rng, tensor.Float64, 0, 1, 4, 5)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
	}{
		{"ce mean", nn.CrossEntropyOp([]int{0, 4, 2, 1}), []*tensor.Dense{rn(4, 5)}},
		{"ce sum smooth", nn.CrossEntropyOp([]int{0, 4, 2, 1}, nn.WithReduction(nn.ReductionSum), nn.LabelSmoothing(0.2)), []*tensor.Dense{rn(4, 5)}},
		{"ce none weights ignore", nn.CrossEntropyOp([]int{0, -100, 2, 1}, nn.WithReduction(nn.ReductionNone), nn.ClassWeights(1, 2, 0.5, 3, 1), nn.IgnoreIndex(-100), nn.LabelSmoothing(0.1)), []*tensor.Dense{rn(4, 5)}},
		{"ce mean weights ignore", nn.CrossEntropyOp([]int{0, -100, 2, 1}, nn.ClassWeights(1, 2, 0.5, 3, 1), nn.IgnoreIndex(-100), nn.LabelSmoothing(0.1)), []*tensor.Dense{rn(4, 5)}},
		{"ce 1d", nn.CrossEntropyOp([]int{2}), []*tensor.Dense{rn(5)}},
		{"ce kdim", nn.CrossEntropyOp([]int{0, 1, 2, 0, 1, 2}, nn.WithReduction(nn.ReductionNone)), []*tensor.Dense{rn(2, 3, 3)}},
		{"ce probs", nn.CrossEntropyProbsOp(), []*tensor.Dense{rn(4, 5), probs}},
		{"ce probs all", nn.CrossEntropyProbsOp(nn.WithReduction(nn.ReductionNone), nn.ClassWeights(1, 2, 0.5, 3, 1), nn.LabelSmoothing(0.3)), []*tensor.Dense{rn(4, 5), probs}},
		{"ce probs kdim", nn.CrossEntropyProbsOp(nn.WithReduction(nn.ReductionSum)), []*tensor.Dense{rn(2, 3, 2), tensor.RandUniform(rng, tensor.Float64, 0, 1, 2, 3, 2)}},
		{"nll", nn.NLLLossOp([]int{0, 4, 2, 1}), []*tensor.Dense{rn(4, 5)}},
		{"nll weights", nn.NLLLossOp([]int{0, 4, 2, 1}, nn.ClassWeights(1, 2, 0.5, 3, 1), nn.IgnoreIndex(4), nn.WithReduction(nn.ReductionNone)), []*tensor.Dense{rn(4, 5)}},
		{"mse", nn.MSELossOp(), []*tensor.Dense{rn(3, 4), rn(3, 4)}},
		{"mse complex", nn.MSELossOp(nn.WithReduction(nn.ReductionSum)), []*tensor.Dense{tensor.RandN(rng, tensor.Complex128, 3, 4), tensor.RandN(rng, tensor.Complex128, 3, 4)}},
		{"mse broadcast", nn.MSELossOp(nn.WithReduction(nn.ReductionNone)), []*tensor.Dense{rn(3, 4), rn(4)}},
		{"huber", nn.HuberLossOp(0.7), []*tensor.Dense{rn(3, 4), rn(3, 4)}},
		{"bce", nn.BCEWithLogitsOp(), []*tensor.Dense{rn(3, 4), tensor.RandUniform(rng, tensor.Float64, 0, 1, 3, 4)}},
		{"bce pos weight", nn.BCEWithLogitsOp(nn.PosWeight(tensor.RandUniform(rng, tensor.Float64, 0.5, 3, 4)), nn.Weight(tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 3, 1)), nn.WithReduction(nn.ReductionSum)), []*tensor.Dense{rn(3, 4), tensor.RandUniform(rng, tensor.Float64, 0, 1, 3, 4)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ruletest.Check(t, tensor.Space{}, c.op, c.in, ruletest.Config{FullJacobianMaxSize: 80})
		})
	}
}

func TestLossErrors(t *testing.T) {
	x := tensor.Ones(tensor.Float64, 2, 3)
	_, err := nn.CrossEntropy(x, []int{0, 3})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = nn.CrossEntropy(x, []int{0})
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = nn.CrossEntropy(x, []int{0, -100})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = nn.CrossEntropy(x, []int{0, 1}, nn.LabelSmoothing(2))
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = cr.Eval(nn.MSELossOp(nn.PosWeight(x)), x, x)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = cr.Eval(nn.HuberLossOp(-1), x, x)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = cr.Eval(nn.BCEWithLogitsOp(), x, tensor.Ones(tensor.Float64, 3))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
}

package writingops_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/examples/writingops"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// The composite softmax passes the checker and agrees with package nn's fused one.
func TestSoftmaxComposite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, axis := range []int{0, -1} {
		x := tensor.RandN(rng, tensor.Float64, 3, 4)
		ruletest.Check(t, tensor.Space{}, writingops.SoftmaxOp(axis), []*tensor.Dense{x}, ruletest.Config{})
		want, err := nn.Softmax(x, axis)
		require.NoError(t, err)
		got, err := cr.Eval(writingops.SoftmaxOp(axis), x)
		require.NoError(t, err)
		require.True(t, tensor.EqualApprox(want, got, 1e-15, 1e-14), "axis %d: composite %v, fused %v", axis, got, want)
	}
}

// The composite log_softmax passes the checker and agrees with package nn's.
func TestLogSoftmaxComposite(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, axis := range []int{0, -1} {
		x := tensor.RandN(rng, tensor.Float64, 3, 4)
		x.Float64s()[0] = 700 // no overflow: the maximum is subtracted first
		ruletest.Check(t, tensor.Space{}, writingops.LogSoftmaxOp(axis), []*tensor.Dense{x}, ruletest.Config{})
		want, err := nn.LogSoftmax(x, axis)
		require.NoError(t, err)
		got, err := cr.Eval(writingops.LogSoftmaxOp(axis), x)
		require.NoError(t, err)
		require.True(t, tensor.EqualApprox(want, got, 1e-13, 1e-14), "axis %d: composite %v, fused %v", axis, got, want)
	}
}

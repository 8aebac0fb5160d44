package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// Bad input to the native single-precision paths and their rules is an error
// wrapping a chainrules sentinel, naming the op (and the dtypes given where the
// widened op reports it), never a panic: bad primal inputs are reported as the
// widened op reports them, and a cotangent of the wrong shape or dtype by the
// native Pullback or the widened rule it hands it to.
func TestNativeSingleBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	x32 := tensor.RandN(rng, tensor.Float32, 3, 4)
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
		want error
		text string
	}{
		{"softmax axis out of range", nn.SoftmaxOp(2), []*tensor.Dense{x32}, cr.ErrInvalidArgument, "float32[3 4]"},
		{"cross_entropy label out of range", nn.CrossEntropyOp([]int{0, 9, 1}), []*tensor.Dense{x32}, cr.ErrInvalidArgument, "float32[3 4]"},
		{"cross_entropy too few labels", nn.CrossEntropyOp([]int{0, 1}), []*tensor.Dense{x32}, cr.ErrShapeMismatch, "float32[3 4]"},
		{"layer_norm weight of another size", nn.LayerNormOp([]int{4}, nn.Affine(true, false)), []*tensor.Dense{x32, tensor.RandN(rng, tensor.Float32, 3)}, cr.ErrShapeMismatch, "float32[3]"},
		{"batch_norm one value per channel", nn.BatchNormOp(nn.Training(true)), []*tensor.Dense{tensor.RandN(rng, tensor.Float32, 1, 4)}, cr.ErrInvalidArgument, "float32[1 4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cr.EvalMulti(tc.op, tc.in...)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.op.Name())
			assert.Contains(t, err.Error(), tc.text)
		})
	}
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
		ybar *tensor.Dense
	}{
		{"layer_norm cotangent of another shape", nn.LayerNormOp([]int{4}), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Float32, 4, 3)},
		{"layer_norm complex cotangent", nn.LayerNormOp([]int{4}), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Complex64, 3, 4)},
		{"batch_norm cotangent of another shape", nn.BatchNormOp(nn.Training(true)), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Float32, 2, 4)},
		{"softmax cotangent of another shape", nn.SoftmaxOp(-1), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Float32, 4, 3)},
		{"log_softmax complex cotangent", nn.LogSoftmaxOp(-1), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Complex64, 3, 4)},
		{"cross_entropy cotangent not a scalar", nn.CrossEntropyOp([]int{0, 1, 2}), []*tensor.Dense{x32}, tensor.RandN(rng, tensor.Float32, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := make([]cr.NodeID, len(tc.in))
			for k := range ids {
				ids[k] = cr.NodeID(k + 1)
			}
			out := make([]*tensor.Dense, tc.op.NumOutputs())
			rule, err := tc.op.Apply(ids, tc.in, out)
			require.NoError(t, err)
			_, err = rule.Pullback([]*tensor.Dense{tc.ybar}, []bool{true}, nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, cr.ErrShapeMismatch)
			assert.Contains(t, err.Error(), tc.op.Name())
		})
	}
}

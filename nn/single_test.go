package nn_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every op of nn, at every sample with its inputs rounded to single precision,
// computes in single precision (in double precision, rounded once) and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, nn.Register, 100)
}

// The ops of nn in single precision through ruletest's registry check, recorded
// derivatives to order 4 included (finite differences in float32, with the
// absolute tolerance of recordtest.CheckSingleRegistry).
func TestSinglePrecisionRegistry(t *testing.T) {
	recordtest.CheckSingleRegistry(t, nn.Register)
}

// f32 returns a float32 tensor of the given shape with standard normal entries.
func f32(rng *rand.Rand, shape ...int) *tensor.Dense {
	return tensor.RandN(rng, tensor.Float32, shape...)
}

// Bad single-precision input is the error of the double-precision op, wrapping
// the same sentinel, naming the op and the dtypes the caller gave; nothing panics.
func TestSinglePrecisionBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		in     []*tensor.Dense
		want   error
		inText string
	}{
		{"softmax of complex64", nn.SoftmaxOp(-1), []*tensor.Dense{tensor.RandN(rng, tensor.Complex64, 3, 4)}, cr.ErrInvalidArgument, "complex64[3 4]"},
		{"conv2d with too few weight channels", nn.Conv2dOp(), []*tensor.Dense{f32(rng, 1, 2, 5, 5), f32(rng, 3, 4, 3, 3)}, cr.ErrShapeMismatch, "float32[3 4 3 3]"},
		{"cross_entropy with a label out of range", nn.CrossEntropyOp([]int{0, 7}), []*tensor.Dense{f32(rng, 2, 5)}, cr.ErrInvalidArgument, "float32[2 5]"},
		{"layer_norm over a shape the input lacks", nn.LayerNormOp([]int{3}), []*tensor.Dense{f32(rng, 2, 4)}, cr.ErrShapeMismatch, "float32[2 4]"},
		{"batch_norm with running statistics of another size", nn.BatchNormOp(nn.RunningStats(f32(rng, 2), f32(rng, 2))), []*tensor.Dense{f32(rng, 4, 3)}, cr.ErrShapeMismatch, "float32[4 3]"},
		{"matmul of mismatched float32 and float64", nn.MatmulOp, []*tensor.Dense{f32(rng, 2, 3), tensor.RandN(rng, tensor.Float64, 4, 2)}, cr.ErrShapeMismatch, "float64[4 2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cr.EvalMulti(tc.op, tc.in...)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.op.Name())
			assert.Contains(t, err.Error(), tc.inText)
		})
	}
}

// A float32 input next to a float64 one gives float64 results, as in PyTorch
// (tensor.PromoteTypes); single-precision inputs alone give single precision.
func TestSinglePrecisionPromotion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, w := f32(rng, 2, 3), tensor.RandN(rng, tensor.Float64, 4, 3)
	y, err := cr.Eval(nn.LinearOp(false), x, w)
	require.NoError(t, err)
	assert.Equal(t, tensor.Float64, y.DType())
	w32 := recordtest.SingleOf(t, w)
	y, err = cr.Eval(nn.LinearOp(false), x, w32)
	require.NoError(t, err)
	assert.Equal(t, tensor.Float32, y.DType())
}

// Single precision: float32 logits give a float32 loss and a float32 gradient
// (cross_entropy of softmax probabilities; torch 1.13 in float32 gives 0.7450),
// computed in double precision and rounded once.
func Example_singlePrecision() {
	x, _ := tensor.FromFloat32([]float32{2, 1, 0.1, 0.5, 2.5, 0.3}, 2, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	xid := tape.Leaf(x)
	loss := tape.Apply(nn.CrossEntropyOp([]int{0, 1}), tape.Apply(nn.SoftmaxOp(-1), xid))
	g, _ := tape.Backward(loss)
	l, _ := tape.Value(loss)
	gx, _ := g.Of(xid)
	fmt.Println(l.DType(), gx.DType(), gx.Shape())
	fmt.Printf("%.4f\n", l.Float32s()[0])
	// Output:
	// float32 float32 [2 3]
	// 0.7450
}

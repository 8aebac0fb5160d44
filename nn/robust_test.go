package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every op of the package, on odd inputs (empty axes, no rows, scalars, the other
// dtype, NaN and infinities, bad labels), returns an error or a value, and every
// sweep through a value it returned ends with a result or an error: never a panic.
func TestNoPanicOnOddInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	nonFinite, _ := tensor.FromFloat64([]float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, 2}, 2, 3)
	xs := map[string]*tensor.Dense{
		"[0 3]":      tensor.New(tensor.Float64, 0, 3),
		"[3 0]":      tensor.New(tensor.Float64, 3, 0),
		"[0]":        tensor.New(tensor.Float64, 0),
		"scalar":     tensor.Scalar(0.5),
		"[2 3]":      tensor.RandN(rng, tensor.Float64, 2, 3),
		"complex":    tensor.RandN(rng, tensor.Complex128, 2, 3),
		"non-finite": nonFinite,
		"[2 3 2]":    tensor.RandN(rng, tensor.Float64, 2, 3, 2),
	}
	unary := map[string]cr.Op[*tensor.Dense]{
		"softmax": nn.SoftmaxOp(1), "log_softmax": nn.LogSoftmaxOp(-1),
		"ce": nn.CrossEntropyOp([]int{0, 2}), "ce bad label": nn.CrossEntropyOp([]int{0, 7}),
		"ce all ignored": nn.CrossEntropyOp([]int{-1, -1}, nn.IgnoreIndex(-1), nn.LabelSmoothing(0.5)),
		"ce no labels":   nn.CrossEntropyOp(nil), "ce bad weights": nn.CrossEntropyOp([]int{0, 1}, nn.ClassWeights(1)),
		"ce bad option": nn.CrossEntropyOp([]int{0, 1}, nn.PosWeight(nil), nn.WithReduction(7)),
		"nll":           nn.NLLLossOp([]int{0, 2}, nn.ClassWeights(0, 0, 0)), "nll none": nn.NLLLossOp(nil, nn.WithReduction(nn.ReductionNone)),
		"cumsum": nn.CumsumOp(1), "cumsum bad axis": nn.CumsumOp(5), "cumprod": nn.CumprodOp(0), "cumprod bad axis": nn.CumprodOp(-9),
		"logcumsumexp": nn.LogCumsumExpOp(1), "clamp": nn.ClampOp(1, -1), "clamp nan": nn.ClampOp(math.NaN(), 1),
		"argmax": nn.ArgmaxOp(1, true), "argmin": nn.ArgminOp(0, false), "one_hot": nn.OneHotOp(-1), "one_hot 3": nn.OneHotOp(3),
	}
	binary := map[string]cr.Op[*tensor.Dense]{
		"ce probs": nn.CrossEntropyProbsOp(nn.LabelSmoothing(0.2)), "mse": nn.MSELossOp(), "huber": nn.HuberLossOp(1),
		"huber bad delta": nn.HuberLossOp(math.NaN()), "bce": nn.BCEWithLogitsOp(nn.PosWeight(tensor.Ones(tensor.Float64, 3))),
		"matmul": nn.MatmulOp, "scan": nn.LinearScanOp(0), "reverse scan": nn.ReverseLinearScanOp(-1),
	}
	multi := map[string]cr.Op[*tensor.Dense]{
		"sort": nn.SortOp(-1, true), "topk": nn.TopKOp(2, 0, false), "topk negative": nn.TopKOp(-1, 0, true),
	}
	run := func(t *testing.T, record func(tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []cr.NodeID, in []*tensor.Dense) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		ids := make([]cr.NodeID, len(in))
		seeds := map[cr.NodeID]*tensor.Dense{}
		for k, x := range in {
			ids[k] = tp.Leaf(x)
			seeds[ids[k]] = tensor.Space{}.Rand(x, rng)
		}
		outs := record(tp, ids)
		if tp.Err() != nil {
			return
		}
		v, err := tp.Value(outs[0])
		require.NoError(t, err)
		seed := tensor.Ones(v.DType(), v.Shape()...)
		_, _ = tp.BackwardSeed(outs[0], seed)
		if tan, err := tp.ForwardTangents(seeds); err == nil {
			_, _, _ = tp.BackwardWithTangentsSeed(outs[0], cr.Dual[*tensor.Dense]{Value: seed, Tangent: seed, HasTangent: true}, tan)
		}
	}
	for name, op := range unary {
		for xn, x := range xs {
			t.Run(fmt.Sprintf("%s/%s", name, xn), func(t *testing.T) {
				run(t, func(tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []cr.NodeID {
					return []cr.NodeID{tp.Apply(op, ids...)}
				}, []*tensor.Dense{x})
			})
		}
	}
	for name, op := range binary {
		for xn, x := range xs {
			for yn, y := range xs {
				t.Run(fmt.Sprintf("%s/%s,%s", name, xn, yn), func(t *testing.T) {
					run(t, func(tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []cr.NodeID {
						return []cr.NodeID{tp.Apply(op, ids...)}
					}, []*tensor.Dense{x, y})
				})
			}
		}
	}
	for name, op := range multi {
		for xn, x := range xs {
			t.Run(fmt.Sprintf("%s/%s", name, xn), func(t *testing.T) {
				run(t, func(tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []cr.NodeID { return tp.ApplyMulti(op, ids...) },
					[]*tensor.Dense{x})
			})
		}
	}
	clamp := nn.ClampTensorOp
	for xn, x := range xs {
		t.Run("clamp_tensor/"+xn, func(t *testing.T) {
			run(t, func(tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{tp.Apply(clamp, ids...)}
			}, []*tensor.Dense{x, tensor.Scalar(-0.5), x})
		})
	}
}

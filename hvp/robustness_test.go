package hvp_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every registered op, applied to malformed inputs — wrong arity, nil, empty tensors,
// an extra leading axis, the other dtype — returns an error or a value through the
// tape, and never panics; when it returns a value, the backward pass does not panic
// either.
func TestOpsNeverPanicOnBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, e := range ops.Default().Entries() {
		samples := e.Samples(rng)
		if len(samples) == 0 {
			continue
		}
		s := samples[0]
		variants := map[string][]*tensor.Dense{
			"no inputs": nil,
			"extra":     append(append([]*tensor.Dense(nil), s.Inputs...), s.Inputs[0]),
			"nil":       replaceAll(s.Inputs, func(*tensor.Dense) *tensor.Dense { return nil }),
			"empty":     replaceAll(s.Inputs, func(*tensor.Dense) *tensor.Dense { return tensor.New(tensor.Float64, 0) }),
			"scalar":    replaceAll(s.Inputs, func(*tensor.Dense) *tensor.Dense { return tensor.Scalar(0.5) }),
			"lead axis": replaceAll(s.Inputs, func(x *tensor.Dense) *tensor.Dense {
				return tensor.RandN(rng, x.DType(), append([]int{2}, x.Shape()...)...)
			}),
			"other type": replaceAll(s.Inputs, func(x *tensor.Dense) *tensor.Dense { return flipDType(rng, x) }),
			"first only": replaceFirst(s.Inputs, tensor.RandN(rng, tensor.Float64, 3, 1, 2)),
		}
		for name, in := range variants {
			t.Run(fmt.Sprintf("%s/%s", e.Name, name), func(t *testing.T) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				tp := core.NewTape[*tensor.Dense](tensor.Space{})
				ids := make([]cr.NodeID, len(in))
				for i, x := range in {
					if x == nil {
						ids[i] = tp.Constant(nil)
					} else {
						ids[i] = tp.Leaf(x)
					}
				}
				var y cr.NodeID
				ys := tp.ApplyMulti(s.Op, ids...)
				if tp.Err() != nil {
					return
				}
				for m, id := range ys { // the first differentiable output
					if cr.IsOutputDifferentiable(s.Op, m) {
						y = id
						break
					}
				}
				if tp.Err() != nil {
					return // an error is the right answer for most variants
				}
				v, _ := tp.Value(y)
				if _, err := tp.BackwardSeed(y, tensor.Ones(v.DType(), v.Shape()...)); err != nil {
					t.Logf("backward error (acceptable): %v", err)
				}
			})
		}
	}
}

func replaceAll(in []*tensor.Dense, f func(*tensor.Dense) *tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

func replaceFirst(in []*tensor.Dense, x *tensor.Dense) []*tensor.Dense {
	out := append([]*tensor.Dense(nil), in...)
	out[0] = x
	return out
}

func flipDType(rng *rand.Rand, x *tensor.Dense) *tensor.Dense {
	if x.DType() == tensor.Float64 {
		return tensor.RandN(rng, tensor.Complex128, x.Shape()...)
	}
	return tensor.RandN(rng, tensor.Float64, x.Shape()...)
}

package nn

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Tape is the tape of tensor graphs.
type Tape = core.Tape[*tensor.Dense]

// LogSoftmaxOp returns the op log_softmax(x) = z - log(sum(exp(z))) along axis, with
// z = x - max(x) (negative axes count from the end): a composite op. The maximum is
// recorded without gradient; log_softmax does not depend on it, so the derivatives
// are exact and no input overflows.
func LogSoftmaxOp(axis int) cr.Op[*tensor.Dense] {
	return core.Composite("log_softmax", tensor.Space{}, 1, func(t *Tape, x []cr.NodeID) cr.NodeID {
		z := shifted(t, x[0], axis)
		lse := t.Apply(elementwise.LogOp, t.Apply(reduce.SumOp([]int{axis}, true), t.Apply(elementwise.ExpOp, z)))
		return t.Apply(elementwise.SubOp, z, lse)
	})
}

// SoftmaxOp returns the op softmax(x) = exp(z) / sum(exp(z)) along axis, with
// z = x - max(x) as in LogSoftmaxOp: a composite op.
func SoftmaxOp(axis int) cr.Op[*tensor.Dense] {
	return core.Composite("softmax", tensor.Space{}, 1, func(t *Tape, x []cr.NodeID) cr.NodeID {
		e := t.Apply(elementwise.ExpOp, shifted(t, x[0], axis))
		return t.Apply(elementwise.DivOp, e, t.Apply(reduce.SumOp([]int{axis}, true), e))
	})
}

// shifted records x - max(x) along axis, with the maximum recorded without gradient.
func shifted(t *Tape, x cr.NodeID, axis int) cr.NodeID {
	var m cr.NodeID
	t.NoGrad(func() { m = t.Apply(reduce.MaxOp([]int{axis}, true), x) })
	return t.Apply(elementwise.SubOp, x, m)
}

// LogSoftmax evaluates log_softmax along axis without a tape.
func LogSoftmax(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(LogSoftmaxOp(axis), x)
}

// Softmax evaluates softmax along axis without a tape.
func Softmax(x *tensor.Dense, axis int) (*tensor.Dense, error) { return cr.Eval(SoftmaxOp(axis), x) }

// Register adds softmax and log_softmax to reg, with samples for testing/ruletest.
// It returns an error wrapping chainrules.ErrInvalidArgument for a nil reg, or
// chainrules.ErrDuplicate if a name is taken.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	var entries []cr.Entry[*tensor.Dense]
	for _, e := range []struct {
		name, doc string
		op        func(axis int) cr.Op[*tensor.Dense]
	}{
		{"softmax", "softmax(x) = exp(x) / sum(exp(x)) along an axis", SoftmaxOp},
		{"log_softmax", "log_softmax(x) = x - logsumexp(x) along an axis", LogSoftmaxOp},
	} {
		entries = append(entries, cr.Entry[*tensor.Dense]{Name: e.name, Arity: 1, DTypes: []string{"float64"},
			Forward: true, SecondOrder: true, Doc: e.doc,
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				large := tensor.RandN(rng, tensor.Float64, 2, 3)
				large.Float64s()[0] = 800
				return []cr.Sample[*tensor.Dense]{
					{Name: "3x4 last axis", Op: e.op(-1), Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4)}},
					{Name: "3x4x2 axis 1", Op: e.op(1), Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4, 2)}},
					{Name: "large entry", Op: e.op(1), Inputs: []*tensor.Dense{large}},
				}
			}})
	}
	return cr.RegisterEntries(reg, "nn.Register", entries...)
}

package nn

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// DropoutOp returns PyTorch's F.dropout(x, p, training) with its random mask
// drawn from seed: in training each element is kept with probability 1 - p and
// scaled by 1/(1 - p), otherwise zeroed,
//
//	y = x * mask,  mask_i = 1/(1 - p) with probability 1 - p, else 0,
//
// so that E[y] = x; xbar = ybar * mask, ydot = xdot * mask, and the second
// derivative is zero. The mask is drawn once, when the op is applied (from a
// PCG generator seeded with seed, so the same seed and shape give the same mask),
// and every sweep of that recording (the pullback, the forward tangent, the
// second order and every higher order) multiplies by that same mask: the op is a
// composite of a product with the mask as a constant. Give each application its
// own seed (a new one for every training step, e.g. from a *rand.Rand), as one
// passes a new key to JAX's dropout. The masks are not PyTorch's (its generator
// differs), only their distribution is.
//
// Outside training, and for p = 0, the op is the identity; for p = 1 it returns
// zeros (and zero derivatives). A p outside [0, 1] (or NaN) is an error wrapping
// chainrules.ErrInvalidArgument, as is an input that is not float64.
func DropoutOp(p float64, training bool, seed uint64) cr.Op[*tensor.Dense] {
	const name = "dropout"
	body := func(t *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
		if !training || p == 0 {
			return []cr.NodeID{t.Apply(elementwise.PositiveOp, in[0])}
		}
		x, err := t.Value(in[0])
		if err != nil {
			return []cr.NodeID{in[0]}
		}
		return []cr.NodeID{t.Apply(elementwise.MulOp, in[0], t.Constant(DropoutMask(x.Shape(), p, seed)))}
	}
	return checkedOp{
		Op: core.Composite(name, tensor.Space{}, 1, body),
		check: func(x []*tensor.Dense) error {
			if err := checkInputs(name, x, 1); err != nil {
				return err
			}
			if err := checkReal(name, x...); err != nil {
				return err
			}
			if !(p >= 0 && p <= 1) {
				return cr.Errorf(cr.ErrInvalidArgument, "%s: probability p = %v; want 0 <= p <= 1", name, p)
			}
			return nil
		},
	}
}

// Dropout evaluates DropoutOp without a tape.
func Dropout(x *tensor.Dense, p float64, training bool, seed uint64) (*tensor.Dense, error) {
	return cr.Eval(DropoutOp(p, training, seed), x)
}

// DropoutMask returns the mask that DropoutOp(p, true, seed) multiplies an input
// of the given shape by: 1/(1 - p) where an element is kept (probability 1 - p),
// 0 elsewhere, all zeros for p = 1. p must lie in [0, 1].
func DropoutMask(shape []int, p float64, seed uint64) *tensor.Dense {
	m := tensor.New(tensor.Float64, shape...)
	if p >= 1 {
		return m
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	scale := 1 / (1 - p)
	for i := range m.Float64s() {
		if rng.Float64() >= p {
			m.Float64s()[i] = scale
		}
	}
	return m
}

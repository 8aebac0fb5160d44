package elementwise

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The dtypes of the registry entries, by the names package tensor gives them.
var (
	realOnly    = tensor.RealDTypeNames()
	bothDTypes  = tensor.DTypeNames()
	complexOnly = []string{tensor.Complex128.String()}
)

// domain is where an op's samples are drawn: each real and imaginary part uniform in
// [lo, hi], with a random sign when signed (to stay away from a kink at 0). The
// domains keep finite differences clear of poles, branch cuts and kinks.
type domain struct {
	lo, hi float64
	signed bool
}

var (
	anywhere = domain{-2, 2, false}
	positive = domain{0.5, 2, false}
	unitBall = domain{-0.8, 0.8, false}
	offZero  = domain{0.3, 2, true}
	// offInt keeps away from the integers and the halves, where rounding jumps.
	offInt = domain{0.1, 0.4, true}
)

// draw returns a value of dtype dt and shape drawn from d.
func (d domain) draw(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	t := tensor.RandUniform(rng, dt, d.lo, d.hi, shape...)
	if !d.signed {
		return t
	}
	if dt == tensor.Float64 {
		for i, v := range t.Float64s() {
			if rng.IntN(2) == 0 {
				t.Float64s()[i] = -v
			}
		}
		return t
	}
	c := t.Complex128s()
	for i, v := range c {
		re, im := real(v), imag(v)
		if rng.IntN(2) == 0 {
			re = -re
		}
		if rng.IntN(2) == 0 {
			im = -im
		}
		c[i] = complex(re, im)
	}
	return t
}

// unarySamples returns samples of op: float64 [3 4], a scalar and an empty [2 0],
// and complex128 [3 4] (and a promoted float64 input for a complex parameter) when the
// op supports it.
func unarySamples(op cr.Op[*tensor.Dense], dtypes []string, d domain) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		var s []cr.Sample[*tensor.Dense]
		for _, dt := range dtypes {
			if dt == "float64" {
				s = append(s,
					cr.Sample[*tensor.Dense]{Name: "float64 [3 4]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 3, 4)}},
					cr.Sample[*tensor.Dense]{Name: "float64 scalar", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64)}},
					cr.Sample[*tensor.Dense]{Name: "float64 [2 0]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 2, 0)}})
			} else {
				s = append(s,
					cr.Sample[*tensor.Dense]{Name: "complex128 [3 4]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 3, 4)}},
					cr.Sample[*tensor.Dense]{Name: "complex128 [1 5]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 1, 5)}})
			}
		}
		return s
	}
}

// Register adds the package's op families to reg — every unary op (neg, exp, ...,
// positive, cdouble, fill, softplus, scale, shift, pow_scalar) and every
// broadcasting binary op (add, sub, mul, div, pow, maximum, minimum, atan2, hypot,
// xlogy, ..., remainder, complex, polar) under its Name — with sample
// inputs for testing/ruletest. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil reg, or chainrules.ErrDuplicate if a name
// is taken; registration stops there, and the families added before it stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "elementwise.Register", append(append(unaryEntries(), binaryEntries()...), fusedTanhEntries()...)...)
}

// complexParamSamples returns samples of an op with a complex parameter: on
// complex128, and promoting a float64 input.
func complexParamSamples(op cr.Op[*tensor.Dense], d domain) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		return []cr.Sample[*tensor.Dense]{
			{Name: "complex parameter, complex128", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 2, 3)}},
			{Name: "complex parameter, float64 promoted", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 2, 3)}}}
	}
}

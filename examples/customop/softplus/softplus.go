// Package softplus is a worked example of an op written outside the project: softplus
// on float64 tensors, built with elementwise.Unary from the function, its first two
// derivatives and its derivative written as an op, registered in a registry with
// sample inputs and proved with testing/ruletest (see softplus_test.go).
//
// Elementwise, for a real x,
//
//	y   = softplus(x) = log(1 + e^x)   (computed as max(x, 0) + log1p(e^-|x|))
//	y'  = s = sigmoid(x) = 1/(1 + e^-x)
//	y"  = s (1 - s)
//
// from which elementwise.Unary derives the three rules:
//
//	pullback:     xbar    = s ybar
//	forward:      ydot    = s xdot
//	second order: xbardot = s ybardot + s (1 - s) xdot ybar
//
// and, since y' = sigmoid(x) is also given as an op (UnarySpec.Deriv), the pullback
// recorded with ops, xbar = sigmoid(x) ybar, which sigmoid's own recorded
// derivatives carry to any order.
package softplus

import (
	"math"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// sigmoid is 1/(1 + e^-x); for x < -709, e^-x is +Inf and the result 0, not NaN.
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Op is softplus with its rules, to any order. It has no parameters, so, as the project's
// naming scheme has it (elementwise.ExpOp), it is a variable. It has no complex
// definition, so a complex128 input is an error wrapping cr.ErrInvalidArgument.
var Op = elementwise.Unary("softplus", elementwise.UnarySpec{Real: elementwise.Func1[float64]{
	F:  func(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) },
	D1: func(x, _ float64) float64 { return sigmoid(x) },
	D2: func(x, _ float64) float64 { s := sigmoid(x); return s * (1 - s) },
}, Deriv: func(r cr.Recorder[*tensor.Dense], x, _ cr.NodeID) (cr.NodeID, error) {
	return r.Apply(elementwise.SigmoidOp, x), nil
}})

// Register adds softplus to reg, with samples at which testing/ruletest checks it: a
// random matrix, a scalar, and large inputs of both signs, where the naive
// log(1 + e^x) would overflow or lose all precision.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return reg.Register(cr.Entry[*tensor.Dense]{Name: "softplus", Arity: 1, DTypes: []string{"float64"},
		Forward: true, SecondOrder: true, Doc: "softplus(x) = log(1 + exp(x)), elementwise",
		Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
			large, _ := tensor.FromFloat64([]float64{-40, -3, 3, 40}, 4)
			return []cr.Sample[*tensor.Dense]{
				{Name: "random 3x4", Op: Op, Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4)}},
				{Name: "scalar", Op: Op, Inputs: []*tensor.Dense{tensor.Scalar(0.5)}},
				{Name: "large", Op: Op, Inputs: []*tensor.Dense{large}},
			}
		}})
}

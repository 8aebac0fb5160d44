// Package softplus is a worked example of a rule written outside the project: the
// softplus op on float64 tensors, with its pullback, forward rule and second-order
// rule, registered in a registry with sample inputs and proved with
// testing/ruletest (see softplus_test.go).
//
// Elementwise, for a real x,
//
//	y      = softplus(x) = log(1 + exp(x))       (computed as max(x, 0) + log1p(exp(-|x|)))
//	y'     = sigmoid(x)  = 1 / (1 + exp(-x))
//	y''    = sigmoid(x) (1 - sigmoid(x))
//
// so that, with s = sigmoid(x) and products taken elementwise,
//
//	pullback:     xbar    = s ybar
//	forward:      ydot    = s xdot
//	second order: xbardot = s ybardot + s (1 - s) xdot ybar.
package softplus

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Name is the op's registry key.
const Name = "softplus"

// Op returns the softplus op. It accepts one float64 tensor of any shape and
// returns an error wrapping chainrules.ErrInvalidArgument for a complex one
// (softplus is not holomorphic, and the example keeps to the real line).
func Op() chainrules.Op[*tensor.Dense] { return op{} }

type op struct{}

func (op) Name() string { return Name }

func (op) Apply(in []chainrules.NodeID, x []*tensor.Dense) (*tensor.Dense, chainrules.ReverseRule[*tensor.Dense], error) {
	if len(x) != 1 || len(in) != 1 {
		return nil, nil, chainrules.Errorf(chainrules.ErrInvalidArgument, "softplus takes 1 input, got %d", len(x))
	}
	if x[0] == nil || x[0].DType() != tensor.Float64 {
		return nil, nil, chainrules.Errorf(chainrules.ErrInvalidArgument, "softplus needs a float64 tensor")
	}
	xs := x[0].Float64s()
	y := tensor.New(tensor.Float64, x[0].Shape()...)
	s := tensor.New(tensor.Float64, x[0].Shape()...)
	ys, ss := y.Float64s(), s.Float64s()
	for i, v := range xs {
		// Stable for large |x|: log(1 + e^x) = max(x, 0) + log1p(e^-|x|).
		ys[i] = math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
		ss[i] = sigmoid(v)
	}
	return y, &rule{in: slices.Clone(in), s: s}, nil
}

// sigmoid is 1/(1+e^-x), written to avoid overflow for large negative x.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// rule holds s = sigmoid(x), the only thing the derivatives need.
type rule struct {
	in []chainrules.NodeID
	s  *tensor.Dense
}

func (r *rule) Inputs() []chainrules.NodeID { return r.in }

// Pullback returns xbar = s ybar.
func (r *rule) Pullback(ybar *tensor.Dense, dst []chainrules.Contribution[*tensor.Dense]) ([]chainrules.Contribution[*tensor.Dense], error) {
	g, err := tensor.Mul(r.s, ybar)
	if err != nil {
		return dst, err
	}
	return append(dst, chainrules.Contribution[*tensor.Dense]{Node: r.in[0], Value: g}), nil
}

// ForwardTangents returns ydot = s xdot.
func (r *rule) ForwardTangents(tan chainrules.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xd, ok := tan(r.in[0])
	if !ok {
		return nil, false, nil
	}
	yd, err := tensor.Mul(r.s, xd)
	return yd, true, err
}

// PullbackWithTangents returns xbar = s ybar and xbardot = s ybardot +
// s (1 - s) xdot ybar.
func (r *rule) PullbackWithTangents(ct chainrules.Dual[*tensor.Dense], tan chainrules.TangentOf[*tensor.Dense], dst []chainrules.DualContribution[*tensor.Dense]) ([]chainrules.DualContribution[*tensor.Dense], error) {
	xbar, err := tensor.Mul(r.s, ct.Value)
	if err != nil {
		return dst, err
	}
	xbardot := tensor.New(tensor.Float64, r.s.Shape()...)
	if ct.HasTangent {
		if xbardot, err = tensor.Mul(r.s, ct.Tangent); err != nil {
			return dst, err
		}
	}
	if xd, ok := tan(r.in[0]); ok {
		// d2 = s (1 - s), elementwise.
		d2 := tensor.New(tensor.Float64, r.s.Shape()...)
		ds := d2.Float64s()
		for i, s := range r.s.Float64s() {
			ds[i] = s * (1 - s)
		}
		term, err := tensor.Mul(d2, xd)
		if err != nil {
			return dst, err
		}
		if term, err = tensor.Mul(term, ct.Value); err != nil {
			return dst, err
		}
		if xbardot, err = tensor.Add(xbardot, term); err != nil {
			return dst, err
		}
	}
	return append(dst, chainrules.DualContribution[*tensor.Dense]{Node: r.in[0],
		Cotangent: chainrules.Dual[*tensor.Dense]{Value: xbar, Tangent: xbardot, HasTangent: true}}), nil
}

// Entry is the registry entry of softplus, with samples at which testing/ruletest
// checks it: a random matrix, a scalar, and large inputs of both signs, where the
// naive log(1 + exp(x)) would overflow or lose all precision.
func Entry() chainrules.Entry[*tensor.Dense] {
	return chainrules.Entry[*tensor.Dense]{
		Name: Name, Arity: 1, DTypes: []string{"float64"}, Forward: true, SecondOrder: true,
		Doc: "softplus(x) = log(1 + exp(x)), elementwise",
		Samples: func(rng *rand.Rand) []chainrules.Sample[*tensor.Dense] {
			large, _ := tensor.FromFloat64([]float64{-40, -3, 3, 40}, 4)
			return []chainrules.Sample[*tensor.Dense]{
				{Name: "random 3x4", Op: Op(), Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4)}},
				{Name: "scalar", Op: Op(), Inputs: []*tensor.Dense{tensor.Scalar(0.5)}},
				{Name: "large", Op: Op(), Inputs: []*tensor.Dense{large}},
			}
		},
	}
}

// Register adds softplus to reg.
func Register(reg *chainrules.Registry[*tensor.Dense]) error { return reg.Register(Entry()) }

package hvp_test

import (
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

func newSym(n int) *mat.SymDense { return mat.NewSymDense(n, nil) }

// doubleWellOp is f(x, y) = x^4/4 - x^2/2 + y^2 on a 2-vector, written as one op with
// first- and second-order rules, so that the negative-curvature test does not depend
// on other packages.
type doubleWellOp struct{}

func (doubleWellOp) Name() string { return "double_well" }

func (doubleWellOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	v := x[0].Contiguous().Float64s()
	if len(v) != 2 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "double_well needs 2 elements")
	}
	a, b := v[0], v[1]
	out[0] = tensor.Scalar(a*a*a*a/4 - a*a/2 + b*b)
	return &doubleWellRule{in: [1]cr.NodeID{in[0]}, a: a, b: b}, nil
}

type doubleWellRule struct {
	in   [1]cr.NodeID
	a, b float64
}

func (r *doubleWellRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *doubleWellRule) grad(s float64) *tensor.Dense {
	return vec(s*(r.a*r.a*r.a-r.a), s*2*r.b)
}

func (r *doubleWellRule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: r.grad(ybar.AtFloat64())}), nil
}

func (r *doubleWellRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xd, ok := tan(r.in[0])
	if !ok {
		return nil
	}
	g := r.grad(1)
	ydot[0], has[0] = tensor.Scalar(g.AtFloat64(0)*xd.AtFloat64(0) + g.AtFloat64(1)*xd.AtFloat64(1)), true
	return nil
}

func (r *doubleWellRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	s := ct.Value.AtFloat64()
	sd := 0.0
	if ct.HasTangent {
		sd = ct.Tangent.AtFloat64()
	}
	ad, bd := 0.0, 0.0
	if xd, ok := tan(r.in[0]); ok {
		ad, bd = xd.AtFloat64(0), xd.AtFloat64(1)
	}
	// H = diag(3a^2 - 1, 2)
	g := r.grad(1)
	d := vec(sd*g.AtFloat64(0)+s*(3*r.a*r.a-1)*ad, sd*g.AtFloat64(1)+s*2*bd)
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: cr.Dual[*tensor.Dense]{Value: r.grad(s), Tangent: d, HasTangent: true}}), nil
}

// set is the parameter set of the given tensors.
func set(x ...*tensor.Dense) []*tensor.Dense { return x }

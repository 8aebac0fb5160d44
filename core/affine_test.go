package core_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// triple is y = 3x with a rule that reports affine as told and whose second-order
// pullback fails, so that a test sees whether the sweep called it.
type triple struct{ affine bool }

var errSecondOrder = errors.New("second-order pullback called")

func (triple) Name() string    { return "test_triple" }
func (triple) NumOutputs() int { return 1 }
func (o triple) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	y[0] = times3(x[0])
	return &tripleRule{in: in[:1:1], affine: o.affine}, nil
}

func times3(x *tensor.Dense) *tensor.Dense {
	v := append([]float64(nil), x.Float64s()...)
	for i := range v {
		v[i] *= 3
	}
	y, _ := tensor.FromFloat64(v, x.Shape()...)
	return y
}

type tripleRule struct {
	in     []cr.NodeID
	affine bool
}

func (r *tripleRule) Inputs() []cr.NodeID { return r.in }
func (r *tripleRule) Affine() bool        { return r.affine }
func (r *tripleRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: times3(ybar[0])}), nil
}
func (r *tripleRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	if xdot, ok := tangentOf(r.in[0]); ok {
		ydot[0], has[0] = times3(xdot), true
	}
	return nil
}
func (r *tripleRule) PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense], []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return nil, errSecondOrder
}

// TestAffineSecondOrder checks that a second-order sweep runs the plain pullback of
// an affine op (chainrules.AffineRule) whose cotangent has no tangent, though its
// input has one, and that the Hessian-vector product is right: for
// f(x) = sum 3 x², grad = 6x and H v = 6v. A rule that is not affine gets its
// second-order pullback called.
func TestAffineSecondOrder(t *testing.T) {
	for _, affine := range []bool{true, false} {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		xv, _ := tensor.FromFloat64([]float64{1, -2, 0.5}, 3)
		vv, _ := tensor.FromFloat64([]float64{0.25, 1, -1}, 3)
		x := tp.Leaf(xv)
		out := tp.Apply(reduce.SumOp(nil, false), tp.Apply(triple{affine: affine}, tp.Apply(elementwise.SquareOp, x)))
		tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: vv})
		require.NoError(t, err)
		g, gd, err := tp.BackwardWithTangents(out, tan)
		if !affine {
			assert.ErrorIs(t, err, errSecondOrder)
			continue
		}
		require.NoError(t, err)
		gx, _ := g.Of(x)
		hv, _ := gd.Of(x)
		assert.InDeltaSlice(t, []float64{6, -12, 3}, gx.Float64s(), 1e-15)
		assert.InDeltaSlice(t, []float64{1.5, 6, -6}, hv.Float64s(), 1e-15)
	}
}

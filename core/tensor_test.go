package core_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// identityRule passes the cotangent through, or returns a wrongly shaped one.
type identityRule struct {
	in    [1]cr.NodeID
	wrong bool
}

func (r *identityRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *identityRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	v := ybar[0]
	if r.wrong {
		v = tensor.New(ybar[0].DType(), 7)
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: v}), nil
}

func identity(name string, wrong bool) cr.Op[*tensor.Dense] {
	return cr.OpFunc[*tensor.Dense]{OpName: name, F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		return x[0], &identityRule{in: [1]cr.NodeID{in[0]}, wrong: wrong}, nil
	}}
}

func TestTensorGraphErrors(t *testing.T) {
	newTensorTape := func() *core.Tape[*tensor.Dense] { return core.NewTape[*tensor.Dense](tensor.Space{}) }
	x := tensor.Ones(tensor.Float64, 2, 3)

	t.Run("non-scalar output without seed", func(t *testing.T) {
		tp := newTensorTape()
		y := tp.Apply(identity("ident", false), tp.Leaf(x))
		_, err := tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrNonScalarLoss)
		assert.ErrorContains(t, err, "float64[2 3]")
		g, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 2, 3))
		require.NoError(t, err, "a seed makes it fine")
		assert.Equal(t, 1, g.Len())
	})
	t.Run("seed of the wrong shape", func(t *testing.T) {
		tp := newTensorTape()
		y := tp.Apply(identity("ident", false), tp.Leaf(x))
		_, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 3, 2))
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tp.BackwardSeed(y, tensor.Ones(tensor.Complex128, 2, 3))
		assert.ErrorIs(t, err, cr.ErrShapeMismatch, "a dtype mismatch too")
	})
	t.Run("wrongly shaped contribution names the op", func(t *testing.T) {
		tp := newTensorTape()
		y := tp.Apply(identity("shape_liar", true), tp.Leaf(x))
		_, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 2, 3))
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		var oe *cr.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "shape_liar", oe.Op)
		assert.Equal(t, y, oe.Node)
	})
}

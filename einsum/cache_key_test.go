package einsum

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// The plan cache key must not let a spec pose as a spec plus operand shapes: a
// malformed spec that spells the key of a valid one is parsed (and rejected), not
// answered with the valid one's plan.
func TestPlanCacheKeyIsUnambiguous(t *testing.T) {
	a := tensor.New(tensor.Float64, 2, 3)
	b := tensor.New(tensor.Float64, 3, 4)
	_, err := Eval("ij,jk->ik", a, b)
	require.NoError(t, err)
	_, err = Eval("ij,jk->ik|2,3,", b)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = NewPlan("ij,jk->ik|2,3,", b.Shape())
	require.ErrorIs(t, err, cr.ErrInvalidArgument)

	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x, y := tp.Leaf(a), tp.Leaf(b)
	tp.Apply(Op("ij,jk->ik"), x, y)
	require.NoError(t, tp.Err())
	tp.Apply(Op("ij,jk->ik|2,3,"), y)
	require.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
	var oe *cr.OpError
	require.True(t, errors.As(tp.Err(), &oe))
}

// A result or an intermediate whose size overflows is an error of NewPlan, not a
// tensor of a wrapped size.
func TestPlanSizeOverflow(t *testing.T) {
	_, err := NewPlan("i,j->ij", []int{1 << 32}, []int{1 << 32})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = NewPlan("i,j,k->ijk", []int{1 << 16}, []int{1 << 16}, []int{1 << 16})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	// An operand shape that no tensor can have.
	_, err = NewPlan("ab->", []int{1 << 33, 1 << 33})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	row, err := tensor.Scalar(1).BroadcastTo(1 << 32)
	require.NoError(t, err)
	_, err = Eval("i,j->ij", row, row)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = NewPlan("ij,jk->ik", []int{1 << 20, 1 << 20}, []int{1 << 20, 1 << 10})
	require.NoError(t, err)
}

// An operand too large to copy (a broadcast view of 2^62 elements, which costs
// nothing) is an error of NewPlan, so of Eval and of the op on a tape, even when the
// result is small: the contraction reads each operand through a contiguous copy.
func TestPlanOperandTooLargeToCopy(t *testing.T) {
	big, err := tensor.Scalar(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	_, err = NewPlan("ii->", big.Shape())
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "operand 0 is too large to copy")
	for _, spec := range []string{"ii->", "ii->i", "ij->j"} {
		require.NotPanics(t, func() {
			_, err = Eval(spec, big)
			require.ErrorIs(t, err, cr.ErrInvalidArgument, spec)
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			tp.Apply(Op(spec), tp.Leaf(big))
			require.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument, spec)
		}, spec)
	}
}

package tensor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// bigView is a broadcast view of 2^62 elements over one scalar: a valid tensor that
// no copy of can be allocated.
func bigView(t *testing.T, dt tensor.DType) *tensor.Dense {
	t.Helper()
	s := tensor.Scalar(1)
	if dt == tensor.Complex128 {
		s = tensor.ScalarComplex(1)
	}
	big, err := s.BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	return big
}

// The arithmetic of huge views reports that its result is too large, as an error.
func TestArithOfHugeViewsIsAnError(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		big := bigView(t, dt)
		for name, f := range map[string]func(a, b *tensor.Dense) (*tensor.Dense, error){
			"add": tensor.Add, "sub": tensor.Sub, "mul": tensor.Mul, "div": tensor.Div,
		} {
			require.NotPanics(t, func() {
				y, err := f(big, big)
				assert.Nil(t, y)
				assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%s %v", name, dt)
				assert.ErrorContains(t, err, name+": the result is too large")
			})
			// A real and a complex operand: the promotion copy is never attempted.
			require.NotPanics(t, func() {
				_, err := f(bigView(t, tensor.Float64), tensor.ScalarComplex(1))
				assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%s %v", name, dt)
			})
		}
	}
	// Small views still work.
	v, err := tensor.Scalar(2).BroadcastTo(2, 3)
	require.NoError(t, err)
	y, err := tensor.Add(v, v)
	require.NoError(t, err)
	assert.Equal(t, []float64{4, 4, 4, 4, 4, 4}, y.Float64s())
}

// CheckAlloc says what Alloc would, without allocating.
func TestCheckAlloc(t *testing.T) {
	require.NoError(t, tensor.CheckAlloc(tensor.Float64, 2, 3))
	require.NoError(t, tensor.CheckAlloc(tensor.Complex128))
	require.NoError(t, tensor.CheckAlloc(tensor.Float64, 0, 1<<62))
	for _, c := range []struct {
		dt    tensor.DType
		shape []int
	}{
		{tensor.Float64, []int{1 << 31, 1 << 31}},
		{tensor.Complex128, []int{1 << 44}},
		{tensor.Float64, []int{-1}},
		{tensor.Float64, wrap},
		{tensor.DType(99), []int{2}},
	} {
		err := tensor.CheckAlloc(c.dt, c.shape...)
		require.ErrorIs(t, err, cr.ErrInvalidArgument, "%v %v", c.dt, c.shape)
		_, aerr := tensor.Alloc(c.dt, c.shape...)
		assert.Equal(t, aerr.Error(), err.Error())
	}
}

// CheckInputs, the input check of the ops' Apply, refuses a view too large to copy
// (CheckCopies), naming the op and the input; small views, empty tensors whose
// other dims are huge, and nil entries (reported by CheckInputs itself) pass
// CheckCopies.
func TestCheckInputsRefusesViewsTooLargeToCopy(t *testing.T) {
	small, err := tensor.Scalar(2).BroadcastTo(2, 3)
	require.NoError(t, err)
	empty := tensor.New(tensor.Float64, 0, 1<<62)
	require.NoError(t, opkit.CheckInputs("op", []*tensor.Dense{small, empty}, 2))
	require.NoError(t, opkit.CheckCopies("op", []*tensor.Dense{nil, small}))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		x := []*tensor.Dense{small, bigView(t, dt)}
		for _, err := range []error{opkit.CheckInputs("softmax", x, 2), opkit.CheckCopies("softmax", x)} {
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.ErrorContains(t, err, "softmax: input 1 is a view too large to copy")
		}
	}
	err = opkit.CheckInputs("sum", []*tensor.Dense{nil}, 1)
	assert.ErrorContains(t, err, "sum: input 0 is nil")
}

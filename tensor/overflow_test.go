package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// wrap is a shape whose element count wraps around to 6 in int arithmetic:
// 2*3*7*0x6DB6DB6DB6DB6DB7 = 6 (mod 2^64).
var wrap = []int{2, 3, 7, 0x6DB6DB6DB6DB6DB7}

func TestShapeSizeOverflow(t *testing.T) {
	n, err := tensor.ShapeSize(2, 3, 4)
	require.NoError(t, err)
	assert.Equal(t, 24, n)
	n, err = tensor.ShapeSize()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = tensor.ShapeSize(0, 5)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	n, err = tensor.ShapeSize(math.MaxInt, 1)
	require.NoError(t, err)
	assert.Equal(t, math.MaxInt, n)

	for _, shape := range [][]int{wrap, {1 << 32, 1 << 32}, {math.MaxInt, 2}, {0, 1 << 32, 1 << 32}} {
		_, err := tensor.ShapeSize(shape...)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%v", shape)
	}
	_, err = tensor.ShapeSize(2, -1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

func TestAllocChecksSizes(t *testing.T) {
	x, err := tensor.Alloc(tensor.Complex128, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3}, x.Shape())
	assert.Equal(t, tensor.Complex128, x.DType())
	for _, shape := range [][]int{wrap, {1 << 32, 1 << 32}, {-1}, {1 << 62}} {
		_, err := tensor.Alloc(tensor.Float64, shape...)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%v", shape)
	}
	_, err = tensor.Alloc(tensor.DType(99), 2)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// New cannot return an error: a shape whose size overflows panics (as make does for
// a negative length), it never yields a tensor of the wrong size.
func TestNewPanicsOnOverflow(t *testing.T) {
	assert.PanicsWithValue(t, "tensor.New: invalid argument: shape [4294967296 4294967296] has more elements than an int can count", func() {
		tensor.New(tensor.Float64, 1<<32, 1<<32)
	})
	assert.Panics(t, func() { tensor.New(tensor.Float64, wrap...) })
}

func TestFromFloat64Overflow(t *testing.T) {
	_, err := tensor.FromFloat64(make([]float64, 6), wrap...)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.FromComplex128(make([]complex128, 6), wrap...)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.FromFloat64(nil, 0, 1<<32, 1<<32)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

func TestReshapeBroadcastOverflow(t *testing.T) {
	x := tensor.New(tensor.Float64, 6)
	_, err := x.Reshape(wrap...)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.InferShape([]int{6}, wrap...)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.InferShape([]int{6}, 2, 3, 7, 0x6DB6DB6DB6DB6DB7, -1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	e := tensor.New(tensor.Float64, 0)
	_, err = e.Reshape(0, 1<<32, 1<<32)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)

	_, err = tensor.Scalar(1).BroadcastTo(1<<32, 1<<32)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.BroadcastShapes([]int{1 << 32, 1}, []int{1, 1 << 32})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	// A large view is fine as long as its size is an int.
	big, err := tensor.Scalar(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	assert.Equal(t, 1<<62, big.Size())
}

func TestProductsOverflow(t *testing.T) {
	row, err := tensor.Scalar(1).BroadcastTo(1<<32, 1)
	require.NoError(t, err)
	col, err := tensor.Scalar(1).BroadcastTo(1, 1<<32)
	require.NoError(t, err)
	_, err = tensor.MatMul(row, col)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.Add(row, col)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	r3, _ := tensor.Scalar(1).BroadcastTo(1, 1<<32, 1)
	c3, _ := tensor.Scalar(1).BroadcastTo(1, 1, 1<<32)
	_, err = tensor.BatchMatMul(r3, c3, false, false)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	// SumTo checks the target shape before allocating it.
	_, err = tensor.SumTo(tensor.New(tensor.Float64, 2, 3), []int{1 << 40})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
}

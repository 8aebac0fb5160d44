package permute_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// naivePermute is the reference: y[i] = x[i'] with i'[axes[k]] = i[k], by At/Set.
func naivePermute(x *tensor.Dense, axes []int) *tensor.Dense {
	shape := make([]int, len(axes))
	for k, a := range axes {
		shape[k] = x.Shape()[a]
	}
	y := tensor.New(x.DType(), shape...)
	idx := make([]int, len(shape))
	src := make([]int, len(shape))
	for range y.Size() {
		for k, a := range axes {
			src[a] = idx[k]
		}
		y.Set(x.At(src...), idx...)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return y
}

func TestMaterialize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		shape []int
		axes  []int
	}{
		{[]int{5, 7}, []int{1, 0}},
		{[]int{16, 24}, []int{1, 0}},
		{[]int{9, 17, 11}, []int{2, 0, 1}},
		{[]int{9, 17, 11}, []int{1, 0, 2}},
		{[]int{8, 1, 16, 3}, []int{3, 1, 0, 2}},
		{[]int{10, 9, 8, 7}, []int{3, 1, 0, 2}},
		{[]int{3, 4, 5, 6, 2}, []int{4, 2, 0, 3, 1}},
		{[]int{4, 1, 1}, []int{2, 1, 0}},
		{[]int{0, 3}, []int{1, 0}},
		{[]int{}, []int{}},
	}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v%v/%v", dt, c.shape, c.axes), func(t *testing.T) {
				x := tensor.RandN(rng, dt, c.shape...)
				v, err := x.Permute(c.axes...)
				require.NoError(t, err)
				want := naivePermute(x, c.axes)
				got, err := permute.Materialize(v)
				require.NoError(t, err)
				require.True(t, got.IsContiguous())
				assert.True(t, tensor.EqualApprox(got, want, 0, 0), "Materialize")
				dst := tensor.New(dt, want.Shape()...)
				require.NoError(t, permute.MaterializeTo(dst, v))
				assert.True(t, tensor.EqualApprox(dst, want, 0, 0), "MaterializeTo")
			})
		}
	}
	t.Run("slice and broadcast views", func(t *testing.T) {
		x := tensor.RandN(rng, tensor.Float64, 6, 5)
		s, err := x.Slice(0, 1, 6, 2)
		require.NoError(t, err)
		assert.True(t, tensor.EqualApprox(must(permute.Materialize(s)), s.Clone(), 0, 0))
		b, err := x.BroadcastTo(3, 6, 5)
		require.NoError(t, err)
		assert.True(t, tensor.EqualApprox(must(permute.Materialize(b)), b.Clone(), 0, 0))
	})
	t.Run("fresh", func(t *testing.T) {
		x := tensor.RandN(rng, tensor.Float64, 2, 3)
		y, err := permute.Materialize(x)
		require.NoError(t, err)
		y.Set(42, 0, 0)
		assert.NotEqual(t, 42.0, x.AtFloat64(0, 0))
	})
	t.Run("bad destination", func(t *testing.T) {
		x := tensor.RandN(rng, tensor.Float64, 2, 3)
		err := permute.MaterializeTo(tensor.New(tensor.Float64, 3, 2), x)
		assert.True(t, errors.Is(err, cr.ErrShapeMismatch), "%v", err)
		err = permute.MaterializeTo(tensor.New(tensor.Complex128, 2, 3), x)
		assert.True(t, errors.Is(err, cr.ErrShapeMismatch), "%v", err)
	})
}

func TestOps(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(5, 6)), tensor.Float64, 2, 3, 4)
	cases := []struct {
		name  string
		op    cr.Op[*tensor.Dense]
		shape []int
		want  func() *tensor.Dense
	}{
		{"permute", permute.PermuteOp(2, 0, 1), []int{4, 2, 3}, func() *tensor.Dense { return naivePermute(x, []int{2, 0, 1}) }},
		{"permute negative", permute.PermuteOp(-1, 0, 1), []int{4, 2, 3}, func() *tensor.Dense { return naivePermute(x, []int{2, 0, 1}) }},
		{"transpose", permute.TransposeOp(0, 2), []int{4, 3, 2}, func() *tensor.Dense { return naivePermute(x, []int{2, 1, 0}) }},
		{"moveaxis", permute.MoveAxisOp([]int{0}, []int{-1}), []int{3, 4, 2}, func() *tensor.Dense { return naivePermute(x, []int{1, 2, 0}) }},
		{"moveaxis two", permute.MoveAxisOp([]int{2, 0}, []int{0, 1}), []int{4, 2, 3}, func() *tensor.Dense { return naivePermute(x, []int{2, 0, 1}) }},
		{"reshape", permute.ReshapeOp(6, -1), []int{6, 4}, nil},
		{"unsqueeze", permute.UnsqueezeOp(-1), []int{2, 3, 4, 1}, nil},
		{"unsqueeze front", permute.UnsqueezeOp(0), []int{1, 2, 3, 4}, nil},
		{"broadcast_to", permute.BroadcastToOp(5, 2, 3, 4), []int{5, 2, 3, 4}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := make([]*tensor.Dense, 1)
			_, err := c.op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, out)
			require.NoError(t, err)
			y := out[0]
			assert.Equal(t, c.shape, y.Shape())
			if c.want != nil {
				assert.True(t, tensor.EqualApprox(y, c.want(), 0, 0))
			} else {
				// Row-major order is kept (reshape) or repeated (broadcast).
				xs, ys := x.Float64s(), y.Float64s()
				for i := range ys {
					require.Equal(t, xs[i%len(xs)], ys[i])
				}
			}
		})
	}
}

func TestSqueeze(t *testing.T) {
	x := tensor.RandN(nil, tensor.Float64, 1, 3, 1, 2)
	y, err := permute.Squeeze(x)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 2}, y.Shape())
	y, err = permute.Squeeze(x, -2)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 2}, y.Shape())
}

func TestErrors(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	cases := []struct {
		name string
		op   cr.Op[*tensor.Dense]
		want error
	}{
		{"permute short", permute.PermuteOp(0), cr.ErrInvalidArgument},
		{"permute repeated", permute.PermuteOp(1, 1), cr.ErrInvalidArgument},
		{"permute out of range", permute.PermuteOp(0, 2), cr.ErrInvalidArgument},
		{"transpose out of range", permute.TransposeOp(0, -3), cr.ErrInvalidArgument},
		{"moveaxis lengths", permute.MoveAxisOp([]int{0}, []int{0, 1}), cr.ErrInvalidArgument},
		{"moveaxis repeated", permute.MoveAxisOp([]int{0, 0}, []int{0, 1}), cr.ErrInvalidArgument},
		{"moveaxis repeated destination", permute.MoveAxisOp([]int{0, 1}, []int{1, 1}), cr.ErrInvalidArgument},
		{"reshape size", permute.ReshapeOp(4, 2), cr.ErrShapeMismatch},
		{"reshape two -1", permute.ReshapeOp(-1, -1), cr.ErrInvalidArgument},
		{"squeeze size 3", permute.SqueezeOp(1), cr.ErrInvalidArgument},
		{"unsqueeze out of range", permute.UnsqueezeOp(4), cr.ErrInvalidArgument},
		{"broadcast_to", permute.BroadcastToOp(3, 3), cr.ErrShapeMismatch},
		{"broadcast_to fewer dims", permute.BroadcastToOp(3), cr.ErrShapeMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, make([]*tensor.Dense, 1))
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.want), "%v", err)
			assert.Contains(t, err.Error(), c.op.Name())
		})
	}
}

func TestMaterializeToNonContiguous(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(7, 8)), tensor.Float64, 2, 3)
	dst, err := tensor.New(tensor.Float64, 3, 2).Transpose(0, 1)
	require.NoError(t, err)
	err = permute.MaterializeTo(dst, x)
	assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), "materialize")
}

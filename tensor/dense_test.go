package tensor_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestConstructors(t *testing.T) {
	z := tensor.New(tensor.Float64, 2, 3)
	assert.Equal(t, tensor.Float64, z.DType())
	assert.Equal(t, []int{2, 3}, z.Shape())
	assert.Equal(t, []int{3, 1}, z.Strides())
	assert.Equal(t, 6, z.Size())
	assert.True(t, z.IsContiguous())
	assert.Equal(t, make([]float64, 6), z.Float64s())
	assert.Nil(t, z.Complex128s())

	s := tensor.Scalar(2.5)
	assert.Equal(t, 0, s.Rank())
	assert.Equal(t, 1, s.Size())
	assert.NotNil(t, s.Shape())
	assert.Empty(t, s.Shape())
	assert.Equal(t, 2.5, s.AtFloat64())

	c := tensor.ScalarComplex(1 + 2i)
	assert.Equal(t, tensor.Complex128, c.DType())
	assert.Equal(t, 1+2i, c.At())
	assert.Equal(t, 1.0, c.AtFloat64())

	data := []float64{1, 2, 3, 4}
	f, err := tensor.FromFloat64(data, 2, 2)
	require.NoError(t, err)
	data[3] = 40 // FromFloat64 takes ownership: no copy
	assert.Equal(t, complex(40, 0), f.At(1, 1))

	e, err := tensor.FromFloat64(nil, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, 0, e.Size())
	assert.NotNil(t, e.Float64s())

	ec := tensor.New(tensor.Complex128, 3, 0)
	assert.Equal(t, 0, ec.Size())
	assert.Empty(t, ec.Complex128s())

	assert.Panics(t, func() { tensor.New(tensor.Float64, 2, -1) })
	assert.Equal(t, "float64", tensor.Float64.String())
	assert.Equal(t, "complex128", tensor.Complex128.String())
	assert.Equal(t, tensor.Complex128, tensor.ResultDType(tensor.Float64, tensor.Complex128))
	assert.Equal(t, tensor.Float64, tensor.ResultDType(tensor.Float64, tensor.Float64))
	assert.Equal(t, tensor.Float64, tensor.ResultDType())
	assert.Equal(t, "DType(7)", tensor.DType(7).String())
	assert.Equal(t, []int{12, 4, 1}, tensor.RowMajorStrides(2, 3, 4))
	assert.Equal(t, []int{1, 1}, tensor.RowMajorStrides(0, 1))
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"float length", second(tensor.FromFloat64([]float64{1, 2, 3}, 2, 2)), cr.ErrShapeMismatch},
		{"float scalar length", second(tensor.FromFloat64([]float64{1, 2})), cr.ErrShapeMismatch},
		{"float negative", second(tensor.FromFloat64(nil, -1)), cr.ErrInvalidArgument},
		{"complex length", second(tensor.FromComplex128([]complex128{1}, 2)), cr.ErrShapeMismatch},
		{"complex negative", second(tensor.FromComplex128(nil, 2, -2)), cr.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, tc.err, tc.want)
		})
	}
}

func second[T any](_ T, err error) error { return err }

func TestAtSet(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	x.Set(5+7i, 1, 2)
	assert.Equal(t, complex(5, 0), x.At(1, 2))
	assert.Panics(t, func() { x.At(2, 0) })
	assert.Panics(t, func() { x.At(0) })
	assert.Panics(t, func() { x.Set(1, 0, -1) })

	c := tensor.New(tensor.Complex128, 2)
	c.Set(5+7i, 1)
	assert.Equal(t, 5+7i, c.At(1))
}

func TestViews(t *testing.T) {
	x := seq(2, 3, 4)
	t.Run("permute", func(t *testing.T) {
		p, err := x.Permute(2, 0, 1)
		require.NoError(t, err)
		assert.Equal(t, []int{4, 2, 3}, p.Shape())
		forEachIndex(p.Shape(), func(i []int) {
			assert.Equal(t, x.At(i[1], i[2], i[0]), p.At(i...))
		})
		assert.False(t, p.IsContiguous())
		p.Set(-1, 3, 1, 2) // a view writes its parent
		assert.Equal(t, complex(-1, 0), x.At(1, 2, 3))
		x.Set(23, 1, 2, 3)
	})
	t.Run("transpose", func(t *testing.T) {
		p, err := x.Transpose(0, 2)
		require.NoError(t, err)
		assert.Equal(t, []int{4, 3, 2}, p.Shape())
		forEachIndex(p.Shape(), func(i []int) {
			assert.Equal(t, x.At(i[2], i[1], i[0]), p.At(i...))
		})
	})
	t.Run("slice", func(t *testing.T) {
		s, err := x.Slice(2, 1, 4, 2)
		require.NoError(t, err)
		assert.Equal(t, []int{2, 3, 2}, s.Shape())
		forEachIndex(s.Shape(), func(i []int) {
			assert.Equal(t, x.At(i[0], i[1], 1+2*i[2]), s.At(i...))
		})
		e, err := x.Slice(1, 3, 3, 1)
		require.NoError(t, err)
		assert.Equal(t, []int{2, 0, 4}, e.Shape())
		assert.Empty(t, e.Float64s())
	})
	t.Run("broadcast", func(t *testing.T) {
		r, err := seq(3, 1).BroadcastTo(2, 3, 4)
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 0}, r.Strides())
		forEachIndex(r.Shape(), func(i []int) {
			assert.Equal(t, complex(float64(i[1]), 0), r.At(i...))
		})
	})
	t.Run("compose", func(t *testing.T) {
		// x[:, ::2, 1:3] transposed (0, 2), then broadcast with a leading axis.
		s, err := x.Slice(1, 0, 3, 2)
		require.NoError(t, err)
		s, err = s.Slice(2, 1, 3, 1)
		require.NoError(t, err)
		p, err := s.Transpose(0, 2)
		require.NoError(t, err)
		b, err := p.BroadcastTo(3, 2, 2, 2)
		require.NoError(t, err)
		forEachIndex(b.Shape(), func(i []int) {
			assert.Equal(t, x.At(i[3], 2*i[2], 1+i[1]), b.At(i...))
		})
		c := b.Clone()
		assert.True(t, c.IsContiguous())
		assert.Equal(t, elems(b), elems(c))
		assert.Equal(t, realParts(elems(b)), b.Float64s())
	})
}

func realParts(z []complex128) []float64 {
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = real(v)
	}
	return out
}

func TestViewErrors(t *testing.T) {
	x := seq(2, 3)
	tests := []struct {
		name string
		f    func() error
		want error
	}{
		{"permute short", func() error { return second(x.Permute(0)) }, cr.ErrInvalidArgument},
		{"permute repeat", func() error { return second(x.Permute(0, 0)) }, cr.ErrInvalidArgument},
		{"permute range", func() error { return second(x.Permute(0, 2)) }, cr.ErrInvalidArgument},
		{"transpose range", func() error { return second(x.Transpose(0, 2)) }, cr.ErrInvalidArgument},
		{"transpose negative", func() error { return second(x.Transpose(-1, 0)) }, cr.ErrInvalidArgument},
		{"slice axis", func() error { return second(x.Slice(2, 0, 1, 1)) }, cr.ErrInvalidArgument},
		{"slice stop", func() error { return second(x.Slice(1, 0, 4, 1)) }, cr.ErrInvalidArgument},
		{"slice start>stop", func() error { return second(x.Slice(1, 2, 1, 1)) }, cr.ErrInvalidArgument},
		{"slice step", func() error { return second(x.Slice(1, 0, 2, 0)) }, cr.ErrInvalidArgument},
		{"slice negative start", func() error { return second(x.Slice(0, -1, 1, 1)) }, cr.ErrInvalidArgument},
		{"broadcast dim", func() error { return second(x.BroadcastTo(2, 4)) }, cr.ErrShapeMismatch},
		{"broadcast rank", func() error { return second(x.BroadcastTo(3)) }, cr.ErrShapeMismatch},
		{"reshape size", func() error { return second(x.Reshape(4, 2)) }, cr.ErrShapeMismatch},
		{"reshape infer", func() error { return second(x.Reshape(4, -1)) }, cr.ErrShapeMismatch},
		{"reshape two -1", func() error { return second(x.Reshape(-1, -1)) }, cr.ErrInvalidArgument},
		{"reshape negative", func() error { return second(x.Reshape(-2, 3)) }, cr.ErrInvalidArgument},
		{"reshape -1 with 0", func() error { return second(seq(0, 2).Reshape(0, -1)) }, cr.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "got %v", err)
		})
	}
}

func TestReshape(t *testing.T) {
	x := seq(2, 3, 4)
	tests := []struct {
		name     string
		view     func() (*tensor.Dense, error)
		shape    []int
		wantView bool
	}{
		{"contiguous flat", func() (*tensor.Dense, error) { return x, nil }, []int{24}, true},
		{"contiguous infer", func() (*tensor.Dense, error) { return x, nil }, []int{4, -1}, true},
		{"contiguous to scalar-like", func() (*tensor.Dense, error) { return x, nil }, []int{1, 24, 1}, true},
		{"transposed split", func() (*tensor.Dense, error) { return x.Transpose(0, 2) }, []int{2, 2, 3, 2}, true},
		{"transposed flat copies", func() (*tensor.Dense, error) { return x.Transpose(0, 2) }, []int{24}, false},
		{"row slice merge inner", func() (*tensor.Dense, error) { return x.Slice(1, 0, 2, 1) }, []int{2, 8}, true},
		{"row slice flat copies", func() (*tensor.Dense, error) { return x.Slice(1, 0, 2, 1) }, []int{16}, false},
		{"strided rows copy", func() (*tensor.Dense, error) { return x.Slice(1, 0, 3, 2) }, []int{2, 8}, false},
		{"col slice keeps rows", func() (*tensor.Dense, error) { return x.Slice(2, 1, 3, 1) }, []int{6, 2}, true},
		{"col slice flat copies", func() (*tensor.Dense, error) { return x.Slice(2, 1, 3, 1) }, []int{12}, false},
		{"broadcast split outer", func() (*tensor.Dense, error) { return seq(4).BroadcastTo(6, 4) }, []int{2, 3, 4}, true},
		{"broadcast merge copies", func() (*tensor.Dense, error) { return seq(4).BroadcastTo(6, 4) }, []int{24}, false},
		{"empty", func() (*tensor.Dense, error) { return seq(0, 3), nil }, []int{3, 0, 5}, true},
		{"scalar", func() (*tensor.Dense, error) { return tensor.Scalar(3), nil }, []int{1, 1}, true},
		{"to scalar", func() (*tensor.Dense, error) { return x.Slice(0, 1, 2, 1) }, []int{3, 4}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.view()
			require.NoError(t, err)
			before := elems(v)
			r, err := v.Reshape(tc.shape...)
			require.NoError(t, err)
			assert.Equal(t, before, elems(r))
			if r.Size() == 0 {
				return
			}
			// A view writes through to v; a copy does not.
			first := make([]int, r.Rank())
			r.Set(-100, first...)
			wrote := elems(v)[0] == -100
			assert.Equal(t, tc.wantView, wrote, "reshape %v -> %v strides %v", v.Strides(), r.Shape(), r.Strides())
			r.Set(before[0], first...)
		})
	}
}

// TestRandomViews composes random views and checks every read path against At.
func TestRandomViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		dt := tensor.Float64
		if i%2 == 1 {
			dt = tensor.Complex128
		}
		v := randView(rng, dt)
		want := elems(v)
		assertClose(t, want, v.Shape(), v.Clone())
		assertClose(t, want, v.Shape(), v.Contiguous())
		if dt == tensor.Float64 {
			assert.Equal(t, realParts(want), v.Float64s())
		} else {
			assert.Equal(t, want, v.Complex128s())
		}
		// Reshape to flat and to a random split, then back.
		flat, err := v.Reshape(-1)
		require.NoError(t, err)
		assert.Equal(t, want, elems(flat))
		back, err := flat.Reshape(v.Shape()...)
		require.NoError(t, err)
		assert.Equal(t, want, elems(back))
		if v.Rank() > 0 {
			r, err := v.Reshape(append([]int{1}, v.Shape()...)...)
			require.NoError(t, err)
			assert.Equal(t, want, elems(r))
		}
		sum := tensor.Sum(v)
		var ref complex128
		for _, z := range want {
			ref += z
		}
		assert.InDelta(t, real(ref), real(sum), 1e-9)
		assert.InDelta(t, imag(ref), imag(sum), 1e-9)
	}
}

func TestContiguous(t *testing.T) {
	x := seq(2, 3)
	assert.Same(t, x, x.Contiguous())
	tr, err := x.Transpose(0, 1)
	require.NoError(t, err)
	c := tr.Contiguous()
	assert.NotSame(t, tr, c)
	assert.Equal(t, elems(tr), elems(c))
	assert.Equal(t, []int{2, 1}, c.Strides())

	// A contiguous slice with an offset is copied so that the result starts at 0.
	s, err := x.Slice(0, 1, 2, 1)
	require.NoError(t, err)
	assert.True(t, s.IsContiguous())
	assert.Equal(t, 3, s.Offset())
	sc := s.Contiguous()
	assert.Equal(t, 0, sc.Offset())
	assert.Equal(t, []float64{3, 4, 5}, sc.Float64s())

	// Clone never aliases.
	cl := x.Clone()
	cl.Set(100, 0, 0)
	assert.Equal(t, complex(0, 0), x.At(0, 0))
}

func TestComplexParts(t *testing.T) {
	z, err := tensor.FromComplex128([]complex128{1 + 2i, 3 - 4i}, 2)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 3}, z.Real().Float64s())
	assert.Equal(t, []float64{2, -4}, z.Imag().Float64s())
	assert.Equal(t, []complex128{1 - 2i, 3 + 4i}, z.Conj().Complex128s())
	assert.Same(t, z, z.AsComplex())

	x := seq(2)
	assert.Equal(t, []complex128{0, 1}, x.AsComplex().Complex128s())
	assert.Equal(t, []float64{0, 0}, x.Imag().Float64s())
	r := x.Real()
	r.Set(7, 0)
	assert.Equal(t, 0.0, x.AtFloat64(0), "Real must not alias")
	cj := x.Conj()
	cj.Set(7, 0)
	assert.Equal(t, 0.0, x.AtFloat64(0), "Conj must not alias")
	assert.Equal(t, tensor.Float64, cj.DType())
}

func TestString(t *testing.T) {
	tests := []struct {
		name string
		x    *tensor.Dense
		want string
	}{
		{"matrix", seq(2, 2), "float64[2 2] [[0 1] [2 3]]"},
		{"scalar", tensor.Scalar(1.5), "float64[] 1.5"},
		{"complex", tensor.ScalarComplex(1 - 2i), "complex128[] (1-2i)"},
		{"empty", tensor.New(tensor.Float64, 0, 2), "float64[0 2] []"},
		{"large", tensor.New(tensor.Float64, 100, 100), "float64[100 100]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.x.String())
		})
	}
}

// TestHighRank walks tensors whose axes cannot be merged, beyond the walker's
// small fixed buffers.
func TestHighRank(t *testing.T) {
	shape := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 3}
	x := seq(shape...)
	perm := []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	p, err := x.Permute(perm...)
	require.NoError(t, err)
	want := elems(p)
	assert.Equal(t, realParts(want), p.Clone().Float64s())
	sum, err := tensor.Add(p, p)
	require.NoError(t, err)
	for i, v := range sum.Float64s() {
		require.Equal(t, 2*real(want[i]), v)
	}
	assert.Equal(t, complex(float64(x.Size()*(x.Size()-1)/2), 0), tensor.Sum(p))
	s, err := tensor.SumTo(p, []int{3, 1, 2, 1, 1, 1, 1, 1, 1, 2})
	require.NoError(t, err)
	assert.Equal(t, tensor.Sum(p), tensor.Sum(s))
}

// FuzzReshape checks that a reshape of a random view, viewed or copied, keeps the
// row-major sequence of elements.
func FuzzReshape(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(3))
	f.Add(uint64(99), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, split uint8) {
		rng := rand.New(rand.NewPCG(seed, 0))
		v := randView(rng, tensor.Float64)
		want := elems(v)
		// Factor the size into a random shape.
		n := len(want)
		var shape []int
		for n > 1 && len(shape) < 4 {
			d := 1 + int(split)%n
			for n%d != 0 {
				d--
			}
			shape = append(shape, d)
			n /= d
			split = split/3 + 1
		}
		shape = append(shape, n)
		r, err := v.Reshape(shape...)
		require.NoError(t, err)
		assert.Equal(t, want, elems(r))
	})
}

package tensor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestSpaceBasics(t *testing.T) {
	var sp tensor.Space
	x := seq(2, 3)

	z := sp.Zero(x)
	assert.Equal(t, x.Shape(), z.Shape())
	assert.Equal(t, make([]float64, 6), z.Float64s())
	assert.Equal(t, tensor.Complex128, sp.Zero(cseq(2)).DType())

	for _, like := range []*tensor.Dense{tensor.Scalar(3), seq(1, 1), cseq(1)} {
		one, err := sp.One(like)
		require.NoError(t, err)
		assert.Equal(t, like.Shape(), one.Shape())
		assert.Equal(t, like.DType(), one.DType())
		assert.Equal(t, complex(1, 0), tensor.Sum(one))
	}
	_, err := sp.One(x)
	assert.ErrorIs(t, err, cr.ErrNonScalarLoss)

	assert.Equal(t, []int{2, 3}, sp.Shape(x))
	assert.Empty(t, sp.Shape(tensor.Scalar(1)))
	assert.Equal(t, 6, sp.Size(x))
	assert.Equal(t, "float64", sp.DType(x))
	assert.Equal(t, "complex128", sp.DType(cseq(1)))
	assert.Equal(t, "float64[2 3]", sp.Describe(x))
	assert.Equal(t, "complex128[]", sp.Describe(tensor.ScalarComplex(1)))

	c := sp.Clone(x)
	c.Set(100, 0, 0)
	assert.Equal(t, 0.0, x.AtFloat64(0, 0))

	assert.Equal(t, []float64{0, 2, 4, 6, 8, 10}, sp.Scale(x, 2).Float64s())
	assert.Equal(t, 1.0, x.AtFloat64(0, 1), "Scale modified its input")

	rng := rand.New(rand.NewPCG(1, 1))
	r := sp.Rand(cseq(4, 5), rng)
	assert.Equal(t, []int{4, 5}, r.Shape())
	assert.Equal(t, tensor.Complex128, r.DType())

	assert.Equal(t, []complex128{-1 + 2i}, sp.MulI(tensor.ScalarComplex(2+1i)).Complex128s())
	assert.Equal(t, []complex128{0, 1i, 2i}, sp.MulI(seq(3)).Complex128s())
}

// Elements and FromElements read and build tensors element by element in row-major
// order, also through a strided view, and never alias the tensor's storage.
func TestSpaceElements(t *testing.T) {
	var sp tensor.Space
	x := seq(2, 3)
	xt, err := x.Transpose(0, 1)
	require.NoError(t, err)
	assert.Equal(t, []complex128{0, 3, 1, 4, 2, 5}, sp.Elements(xt))
	e := sp.Elements(x)
	assert.Equal(t, []complex128{0, 1, 2, 3, 4, 5}, e)
	e[0] = 9
	assert.Equal(t, 0.0, x.AtFloat64(0, 0), "Elements aliases the storage")
	c := cseq(2)
	assert.Equal(t, c.Complex128s(), sp.Elements(c))
	assert.Nil(t, sp.Elements(nil))

	y, err := sp.FromElements(x, []complex128{1 + 5i, 2, 3, 4, 5, 6})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3}, y.Shape())
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, y.Float64s(), "imaginary parts are dropped for float64")
	z, err := sp.FromElements(cseq(2), []complex128{1i, 2})
	require.NoError(t, err)
	assert.Equal(t, []complex128{1i, 2}, z.Complex128s())
	s, err := sp.FromElements(tensor.Scalar(1), []complex128{7})
	require.NoError(t, err)
	assert.Equal(t, 7.0, s.AtFloat64())

	_, err = sp.FromElements(x, []complex128{1})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = sp.FromElements(nil, nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

func TestSpaceInner(t *testing.T) {
	var sp tensor.Space
	// Re sum conj(a) b: conj(1+2i)(3-1i) = (1-2i)(3-i) = 1-7i; conj(2)(1i) = 2i.
	a, _ := tensor.FromComplex128([]complex128{1 + 2i, 2}, 2)
	b, _ := tensor.FromComplex128([]complex128{3 - 1i, 1i}, 2)
	got, err := sp.Inner(a, b)
	require.NoError(t, err)
	assert.Equal(t, 1.0, got)

	got, err = sp.Inner(seq(2, 2), seq(2, 2))
	require.NoError(t, err)
	assert.Equal(t, 14.0, got)

	tr, _ := seq(2, 2).Transpose(0, 1)
	got, err = sp.Inner(tr, seq(2, 2))
	require.NoError(t, err)
	assert.Equal(t, 0*0+2*1+1*2+3*3.0, got)

	got, err = sp.Inner(seq(0), seq(0))
	require.NoError(t, err)
	assert.Equal(t, 0.0, got)

	// Inner is the real part of Dot, and the adjoint identity of MulI:
	// <i a, b> = -<a, i b>.
	rng := rand.New(rand.NewPCG(2, 2))
	u, v := tensor.RandN(rng, tensor.Complex128, 3, 4), tensor.RandN(rng, tensor.Complex128, 3, 4)
	d, _ := tensor.Dot(u, v)
	got, _ = sp.Inner(u, v)
	assert.InDelta(t, real(d), got, 1e-12)
	l, _ := sp.Inner(sp.MulI(u), v)
	r, _ := sp.Inner(u, sp.MulI(v))
	assert.InDelta(t, -r, l, 1e-12)
}

func TestSpaceErrors(t *testing.T) {
	var sp tensor.Space
	tests := []struct {
		name string
		f    func() error
	}{
		{"add shape", func() error { return second(sp.Add(seq(2), seq(3))) }},
		{"add dtype", func() error { return second(sp.Add(seq(2), cseq(2))) }},
		{"add broadcast not allowed", func() error { return second(sp.Add(seq(2, 2), seq(2))) }},
		{"accumulate shape", func() error { return second(sp.Accumulate(seq(2), seq(3))) }},
		{"accumulate dtype", func() error { return second(sp.Accumulate(cseq(2), seq(2))) }},
		{"inner shape", func() error { return second(sp.Inner(seq(2), seq(1, 2))) }},
		{"inner dtype", func() error { return second(sp.Inner(seq(2), cseq(2))) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, tc.f(), cr.ErrShapeMismatch)
		})
	}
}

func TestSpaceAccumulate(t *testing.T) {
	var sp tensor.Space

	t.Run("in place", func(t *testing.T) {
		acc, b := seq(2, 3), seq(2, 3)
		got, err := sp.Accumulate(acc, b)
		require.NoError(t, err)
		assert.Same(t, acc, got)
		assert.Equal(t, []float64{0, 2, 4, 6, 8, 10}, got.Float64s())
		assert.Equal(t, []float64{0, 1, 2, 3, 4, 5}, b.Float64s(), "b modified")
	})
	t.Run("strided b", func(t *testing.T) {
		acc := seq(3, 2)
		b, _ := seq(2, 3).Transpose(0, 1)
		got, err := sp.Accumulate(acc, b)
		require.NoError(t, err)
		assert.Equal(t, []float64{0, 4, 3, 7, 6, 10}, got.Float64s())
		assert.Equal(t, []float64{0, 1, 2, 3, 4, 5}, seq(2, 3).Float64s())
	})
	t.Run("complex", func(t *testing.T) {
		acc, b := cseq(2), cseq(2)
		got, err := sp.Accumulate(acc, b)
		require.NoError(t, err)
		assert.Equal(t, []complex128{0, 2 - 1i}, got.Complex128s())
	})
	t.Run("acc is b", func(t *testing.T) {
		acc := seq(3)
		got, err := sp.Accumulate(acc, acc)
		require.NoError(t, err)
		assert.Equal(t, []float64{0, 2, 4}, got.Float64s())
	})
	views := []struct {
		name string
		view func(parent *tensor.Dense) *tensor.Dense
	}{
		{"slice", func(p *tensor.Dense) *tensor.Dense { v, _ := p.Slice(0, 1, 3, 1); return v }},
		{"strided slice", func(p *tensor.Dense) *tensor.Dense { v, _ := p.Slice(1, 0, 3, 2); return v }},
		{"leading rows", func(p *tensor.Dense) *tensor.Dense { v, _ := p.Slice(0, 0, 2, 1); return v }},
		{"transpose", func(p *tensor.Dense) *tensor.Dense { v, _ := p.Transpose(0, 1); return v }},
		{"broadcast", func(p *tensor.Dense) *tensor.Dense {
			r, _ := p.Slice(0, 0, 1, 1)
			v, _ := r.BroadcastTo(2, 3)
			return v
		}},
	}
	for _, tc := range views {
		t.Run("view "+tc.name, func(t *testing.T) {
			parent := seq(3, 3)
			before := parent.Clone()
			acc := tc.view(parent)
			want := elems(acc)
			b := tensor.Ones(tensor.Float64, acc.Shape()...)
			got, err := sp.Accumulate(acc, b)
			require.NoError(t, err)
			for i := range want {
				want[i]++
			}
			assertClose(t, want, acc.Shape(), got)
			assert.Equal(t, before.Float64s(), parent.Float64s(), "parent corrupted")
		})
	}
	t.Run("b aliases acc differently", func(t *testing.T) {
		acc := seq(2, 2)
		b, _ := acc.Transpose(0, 1)
		got, err := sp.Accumulate(acc, b)
		require.NoError(t, err)
		assert.Equal(t, []float64{0, 3, 3, 6}, got.Float64s())
	})
	t.Run("add is fresh", func(t *testing.T) {
		a, b := seq(2), seq(2)
		got, err := sp.Add(a, b)
		require.NoError(t, err)
		got.Set(9, 0)
		assert.Equal(t, []float64{0, 1}, a.Float64s())
	})
}

func TestGonumMatrices(t *testing.T) {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	x := tensor.FromMat(m)
	assert.Equal(t, []int{2, 3}, x.Shape())
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, x.Float64s())
	m.Set(0, 0, 100)
	assert.Equal(t, 1.0, x.AtFloat64(0, 0), "FromMat copies")

	// A submatrix view and a non-raw Matrix.
	sub := m.Slice(0, 2, 1, 3)
	assert.Equal(t, []float64{2, 3, 5, 6}, tensor.FromMat(sub).Float64s())
	assert.Equal(t, []float64{100, 4, 2, 5, 3, 6}, tensor.FromMat(m.T()).Float64s())

	tr, _ := x.Transpose(0, 1)
	back, err := tr.ToMat()
	require.NoError(t, err)
	assert.True(t, mat.Equal(back, mat.NewDense(3, 2, []float64{1, 4, 2, 5, 3, 6})))

	cm := mat.NewCDense(1, 2, []complex128{1 + 1i, 2})
	cx := tensor.FromCMat(cm)
	assert.Equal(t, []complex128{1 + 1i, 2}, cx.Complex128s())
	cback, err := cx.ToCMat()
	require.NoError(t, err)
	assert.Equal(t, 1+1i, cback.At(0, 0))
	cback.Set(0, 0, 5)
	assert.Equal(t, 1+1i, cx.At(0, 0), "ToCMat copies")
	assert.Equal(t, []complex128{1 - 1i, 2}, tensor.FromCMat(cm.H()).Complex128s())
	fc, err := x.ToCMat()
	require.NoError(t, err)
	assert.Equal(t, complex(6, 0), fc.At(1, 2))

	_, err = cx.ToMat()
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = seq(3).ToMat()
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = seq(0, 3).ToCMat()
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = seq(2, 2, 2).ToCMat()
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
}

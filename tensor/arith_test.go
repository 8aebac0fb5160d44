package tensor_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestBroadcastShapes(t *testing.T) {
	tests := []struct {
		name   string
		shapes [][]int
		want   []int
		err    error
	}{
		{"none", nil, []int{}, nil},
		{"scalar", [][]int{{}, {2, 3}}, []int{2, 3}, nil},
		{"trailing", [][]int{{3}, {2, 3}}, []int{2, 3}, nil},
		{"ones", [][]int{{2, 1, 4}, {3, 1}}, []int{2, 3, 4}, nil},
		{"three", [][]int{{1}, {5, 1}, {1, 1, 7}}, []int{1, 5, 7}, nil},
		{"zero", [][]int{{0, 1}, {1, 3}}, []int{0, 3}, nil},
		{"mismatch", [][]int{{2, 3}, {3, 2}}, nil, cr.ErrShapeMismatch},
		{"zero vs two", [][]int{{0}, {2}}, nil, cr.ErrShapeMismatch},
		{"negative", [][]int{{-1}}, nil, cr.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tensor.BroadcastShapes(tc.shapes...)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// naiveBinary computes op elementwise with broadcasting through At.
func naiveBinary(op func(x, y complex128) complex128, a, b *tensor.Dense) ([]complex128, []int) {
	shape, err := tensor.BroadcastShapes(a.Shape(), b.Shape())
	if err != nil {
		panic(err)
	}
	av, _ := a.BroadcastTo(shape...)
	bv, _ := b.BroadcastTo(shape...)
	var out []complex128
	forEachIndex(shape, func(i []int) { out = append(out, op(av.At(i...), bv.At(i...))) })
	return out, shape
}

func TestBinary(t *testing.T) {
	ops := []struct {
		name string
		f    func(a, b *tensor.Dense) (*tensor.Dense, error)
		ref  func(x, y complex128) complex128
	}{
		{"add", tensor.Add, func(x, y complex128) complex128 { return x + y }},
		{"sub", tensor.Sub, func(x, y complex128) complex128 { return x - y }},
		{"mul", tensor.Mul, func(x, y complex128) complex128 { return x * y }},
		{"div", tensor.Div, func(x, y complex128) complex128 { return x / y }},
	}
	tr := func(x *tensor.Dense) *tensor.Dense {
		v, err := x.Transpose(0, 1)
		if err != nil {
			panic(err)
		}
		return v
	}
	pos := func(x *tensor.Dense) *tensor.Dense { // keep divisors away from 0
		y, _ := tensor.Add(x, tensor.Scalar(1))
		return y
	}
	cases := []struct {
		name string
		a, b *tensor.Dense
	}{
		{"same contiguous", seq(2, 3), pos(seq(2, 3))},
		{"row broadcast", seq(2, 3), pos(seq(3))},
		{"col broadcast", seq(2, 3), pos(seq(2, 1))},
		{"scalar right", seq(2, 3), tensor.Scalar(2)},
		{"scalar left", tensor.Scalar(2), pos(seq(2, 3))},
		{"outer", seq(4, 1), pos(seq(1, 5))},
		{"transposed", tr(seq(3, 2)), pos(seq(2, 3))},
		{"both transposed", tr(seq(4, 3)), pos(tr(seq(4, 3)))},
		{"complex", cseq(2, 3), pos(cseq(3))},
		{"promote left", seq(2, 3), pos(cseq(2, 3))},
		{"promote right", cseq(2, 3), pos(seq(2, 1))},
		{"empty", seq(0, 3), pos(seq(3))},
		{"scalars", tensor.Scalar(3), tensor.Scalar(4)},
		{"rank 4", seq(2, 1, 3, 1), pos(seq(4, 1, 2))},
	}
	for _, op := range ops {
		for _, tc := range cases {
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				aBefore, bBefore := elems(tc.a), elems(tc.b)
				got, err := op.f(tc.a, tc.b)
				require.NoError(t, err)
				want, shape := naiveBinary(op.ref, tc.a, tc.b)
				assertClose(t, want, shape, got)
				assert.Equal(t, tensor.ResultDType(tc.a.DType(), tc.b.DType()), got.DType())
				assert.True(t, got.IsContiguous())
				assert.Equal(t, aBefore, elems(tc.a), "input a modified")
				assert.Equal(t, bBefore, elems(tc.b), "input b modified")
			})
		}
	}
}

func TestBinaryRandomViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		a := randView(rng, tensor.Float64)
		// A b that broadcasts against a: a's shape with some dims set to 1, some
		// leading dims dropped, laid out transposed when possible.
		shape := append([]int{}, a.Shape()...)
		for k := range shape {
			if rng.IntN(3) == 0 {
				shape[k] = 1
			}
		}
		shape = shape[rng.IntN(len(shape)+1):]
		dt := tensor.Float64
		if rng.IntN(2) == 0 {
			dt = tensor.Complex128
		}
		b := tensor.RandN(rng, dt, shape...)
		if b.Rank() >= 2 {
			bt := tensor.RandN(rng, dt, append([]int{shape[len(shape)-1]}, shape[:len(shape)-1]...)...)
			perm := make([]int, len(shape))
			for k := range perm {
				perm[k] = (k + 1) % len(shape)
			}
			var err error
			b, err = bt.Permute(perm...)
			require.NoError(t, err)
		}
		got, err := tensor.Mul(a, b)
		require.NoError(t, err)
		want, wshape := naiveBinary(func(x, y complex128) complex128 { return x * y }, a, b)
		assertClose(t, want, wshape, got)
		got, err = tensor.Sub(b, a)
		require.NoError(t, err)
		want, wshape = naiveBinary(func(x, y complex128) complex128 { return x - y }, b, a)
		assertClose(t, want, wshape, got)
	}
}

func TestBinaryErrors(t *testing.T) {
	_, err := tensor.Add(seq(2, 3), seq(3, 2))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.Contains(t, err.Error(), "[2 3]")
	_, err = tensor.Mul(nil, seq(2))
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tensor.AddScaled(seq(2), 1, seq(1))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = tensor.Dot(seq(2), seq(3))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
}

func TestDivByZero(t *testing.T) {
	got, err := tensor.Div(seq(2), tensor.Scalar(0))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(got.AtFloat64(0)))
	assert.True(t, math.IsInf(got.AtFloat64(1), 1))
}

func TestScale(t *testing.T) {
	x := seq(2, 3)
	tr, _ := x.Transpose(0, 1)
	tests := []struct {
		name   string
		a      *tensor.Dense
		s      complex128
		wantDT tensor.DType
	}{
		{"real", x, 2, tensor.Float64},
		{"real strided", tr, -1.5, tensor.Float64},
		{"promote", x, 2i, tensor.Complex128},
		{"complex", cseq(3), 1 - 1i, tensor.Complex128},
		{"empty", seq(0), 3, tensor.Float64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tensor.Scale(tc.a, tc.s)
			assert.Equal(t, tc.wantDT, got.DType())
			var want []complex128
			for _, v := range elems(tc.a) {
				want = append(want, tc.s*v)
			}
			assertClose(t, want, tc.a.Shape(), got)
		})
	}
}

func TestAddScaled(t *testing.T) {
	a, b := seq(2, 2), cseq(2, 2)
	got, err := tensor.AddScaled(a, 0.5, b)
	require.NoError(t, err)
	var want []complex128
	for i, v := range elems(a) {
		want = append(want, v+0.5*elems(b)[i])
	}
	assertClose(t, want, []int{2, 2}, got)
	assert.Equal(t, tensor.Complex128, got.DType())

	tr, _ := a.Transpose(0, 1)
	got, err = tensor.AddScaled(tr, -1, a)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, -1, 0}, got.Float64s())
}

func TestSumDot(t *testing.T) {
	assert.Equal(t, complex(15, 0), tensor.Sum(seq(2, 3)))
	assert.Equal(t, complex(0, 0), tensor.Sum(seq(0, 3)))
	assert.Equal(t, 15-7.5i, tensor.Sum(cseq(2, 3)))
	b, _ := tensor.Scalar(2).BroadcastTo(3, 4)
	assert.Equal(t, complex(24, 0), tensor.Sum(b))

	d, err := tensor.Dot(seq(3), seq(3))
	require.NoError(t, err)
	assert.Equal(t, complex(5, 0), d)

	// sum conj(a) b with a = (1+i), b = (2-i): conj(a) b = (1-i)(2-i) = 1-3i.
	x, _ := tensor.FromComplex128([]complex128{1 + 1i}, 1)
	y, _ := tensor.FromComplex128([]complex128{2 - 1i}, 1)
	d, err = tensor.Dot(x, y)
	require.NoError(t, err)
	assert.Equal(t, 1-3i, d)

	// Mixed dtypes and strided operands.
	tr, _ := seq(3, 2).Transpose(0, 1)
	d, err = tensor.Dot(tr, cseq(2, 3))
	require.NoError(t, err)
	var want complex128
	for i, v := range elems(tr) {
		want += v * elems(cseq(2, 3))[i]
	}
	assert.Equal(t, want, d)
}

func TestSumTo(t *testing.T) {
	x := seq(2, 3, 4)
	tr, _ := x.Permute(2, 0, 1)
	tests := []struct {
		name  string
		x     *tensor.Dense
		shape []int
	}{
		{"same", x, []int{2, 3, 4}},
		{"leading", x, []int{3, 4}},
		{"last", x, []int{2, 3, 1}},
		{"middle", x, []int{2, 1, 4}},
		{"scalar", x, []int{}},
		{"ones", x, []int{1, 1, 1}},
		{"mixed", x, []int{1, 4}},
		{"strided", tr, []int{4, 1, 3}},
		{"complex", cseq(3, 2), []int{2}},
		{"empty source", seq(0, 3), []int{1, 3}},
		{"empty axis kept", seq(2, 0), []int{1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tensor.SumTo(tc.x, tc.shape)
			require.NoError(t, err)
			// Reference: every element of x adds into the output index it broadcasts
			// from.
			ref := tensor.New(tc.x.DType(), tc.shape...)
			lead := tc.x.Rank() - len(tc.shape)
			forEachIndex(tc.x.Shape(), func(i []int) {
				j := make([]int, len(tc.shape))
				for k := range j {
					if tc.shape[k] != 1 {
						j[k] = i[lead+k]
					}
				}
				ref.Set(ref.At(j...)+tc.x.At(i...), j...)
			})
			assertClose(t, elems(ref), tc.shape, got)
			assert.Equal(t, tc.x.DType(), got.DType())
		})
	}
	t.Run("errors", func(t *testing.T) {
		_, err := tensor.SumTo(x, []int{3})
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.SumTo(x, []int{1, 2, 3, 4})
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.SumTo(x, []int{-1})
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
	t.Run("adjoint of broadcast", func(t *testing.T) {
		// <BroadcastTo(u), v> == <u, SumTo(v)> for the real inner product.
		rng := rand.New(rand.NewPCG(5, 6))
		u := tensor.RandN(rng, tensor.Complex128, 3, 1)
		v := tensor.RandN(rng, tensor.Complex128, 2, 3, 4)
		bu, err := u.BroadcastTo(2, 3, 4)
		require.NoError(t, err)
		sv, err := tensor.SumTo(v, []int{3, 1})
		require.NoError(t, err)
		lhs, err := tensor.Dot(bu, v)
		require.NoError(t, err)
		rhs, err := tensor.Dot(u, sv)
		require.NoError(t, err)
		assert.InDelta(t, real(lhs), real(rhs), 1e-12)
	})
}

func TestRandAndFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := tensor.RandN(rng, tensor.Float64, 200, 100)
	var m, v float64
	for _, e := range x.Float64s() {
		m += e
		v += e * e
	}
	n := float64(x.Size())
	assert.InDelta(t, 0, m/n, 0.02)
	assert.InDelta(t, 1, v/n, 0.03)

	z := tensor.RandN(rng, tensor.Complex128, 200, 100)
	var re2, im2 float64
	for _, e := range z.Complex128s() {
		re2 += real(e) * real(e)
		im2 += imag(e) * imag(e)
	}
	assert.InDelta(t, 0.5, re2/n, 0.02)
	assert.InDelta(t, 0.5, im2/n, 0.02)

	u := tensor.RandUniform(rng, tensor.Complex128, -2, 3, 1000)
	for _, e := range u.Complex128s() {
		assert.True(t, real(e) >= -2 && real(e) < 3 && imag(e) >= -2 && imag(e) < 3)
	}
	assert.NotNil(t, tensor.RandN(nil, tensor.Float64, 2))
	assert.Equal(t, 1, tensor.RandUniform(nil, tensor.Float64, 0, 1).Size())

	assert.Equal(t, []float64{2, 2}, tensor.Full(tensor.Float64, 2+5i, 2).Float64s())
	assert.Equal(t, []complex128{2 + 5i}, tensor.Full(tensor.Complex128, 2+5i, 1).Complex128s())
	assert.Equal(t, []float64{1, 1, 1}, tensor.Ones(tensor.Float64, 3).Float64s())
}

func TestEqualApproxMaxDiff(t *testing.T) {
	a := seq(2, 2)
	b := a.AsComplex()
	assert.True(t, tensor.EqualApprox(a, b, 0, 0))
	b.Set(3+1e-9i, 1, 1)
	assert.False(t, tensor.EqualApprox(a, b, 0, 0))
	assert.True(t, tensor.EqualApprox(a, b, 1e-8, 0))
	assert.True(t, tensor.EqualApprox(a, b, 0, 1e-9))
	assert.False(t, tensor.EqualApprox(a, seq(4), 1, 1))

	inf := tensor.Full(tensor.Float64, math.Inf(1), 2)
	assert.True(t, tensor.EqualApprox(inf, inf.Clone(), 0, 0))
	nan := tensor.Full(tensor.Float64, math.NaN(), 2)
	assert.False(t, tensor.EqualApprox(nan, nan, 1, 1))

	b.Set(2.5, 1, 0)
	idx, av, bv, err := tensor.MaxDiff(a, b)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0}, idx)
	assert.Equal(t, complex(2, 0), av)
	assert.Equal(t, complex(2.5, 0), bv)

	n2 := seq(3)
	n2.Set(complex(math.NaN(), 0), 2)
	idx, _, _, err = tensor.MaxDiff(seq(3), n2)
	require.NoError(t, err)
	assert.Equal(t, []int{2}, idx)

	idx, _, _, err = tensor.MaxDiff(tensor.Scalar(1), tensor.Scalar(2))
	require.NoError(t, err)
	assert.Equal(t, []int{}, idx)

	_, _, _, err = tensor.MaxDiff(a, seq(4))
	assert.True(t, errors.Is(err, cr.ErrShapeMismatch))
}

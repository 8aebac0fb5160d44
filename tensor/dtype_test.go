package tensor_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

const (
	f32  = tensor.Float32
	f64  = tensor.Float64
	c64  = tensor.Complex64
	c128 = tensor.Complex128
)

// PromoteTypes is torch.promote_types on the four dtypes (the table of
// torch 1.13), symmetric, and the zero DType for an invalid one.
func TestPromoteTypes(t *testing.T) {
	want := map[[2]tensor.DType]tensor.DType{
		{f32, f32}: f32, {f32, f64}: f64, {f32, c64}: c64, {f32, c128}: c128,
		{f64, f64}: f64, {f64, c64}: c128, {f64, c128}: c128,
		{c64, c64}: c64, {c64, c128}: c128, {c128, c128}: c128,
	}
	for k, w := range want {
		assert.Equal(t, w, tensor.PromoteTypes(k[0], k[1]), "%v %v", k[0], k[1])
		assert.Equal(t, w, tensor.PromoteTypes(k[1], k[0]), "%v %v", k[1], k[0])
	}
	assert.Zero(t, tensor.PromoteTypes(f32, tensor.DType(9)))
	assert.Zero(t, tensor.PromoteTypes(0, f64))
	assert.Equal(t, c64, tensor.ResultDType(f32, c64, f32))
	assert.Equal(t, c128, tensor.ResultDType(f32, c64, f64))
	assert.Equal(t, f64, tensor.ResultDType())
	assert.Zero(t, tensor.ResultDType(tensor.DType(7), f64))
}

// An unknown dtype is a typed error, never a panic, from every constructor that
// returns an error.
func TestInvalidDTypeIsAnError(t *testing.T) {
	for _, dt := range []tensor.DType{0, 5, 9, 255} {
		calls := map[string]func() error{
			"Alloc":         func() error { _, err := tensor.Alloc(dt, 2); return err },
			"CheckAlloc":    func() error { return tensor.CheckAlloc(dt, 2) },
			"ScalarOf":      func() error { _, err := tensor.ScalarOf(dt, 1); return err },
			"AsType":        func() error { _, err := tensor.AsType(tensor.Scalar(1), dt); return err },
			"EyeOf":         func() error { _, err := tensor.EyeOf(dt, 2, 2); return err },
			"ArangeOf":      func() error { _, err := tensor.ArangeOf(dt, 0, 3, 1); return err },
			"LinspaceOf":    func() error { _, err := tensor.LinspaceOf(dt, 0, 1, 3); return err },
			"RandNOf":       func() error { _, err := tensor.RandNOf(nil, dt, 2); return err },
			"RandUniformOf": func() error { _, err := tensor.RandUniformOf(nil, dt, 0, 1, 2); return err },
			"FullOf":        func() error { _, err := tensor.FullOf(dt, 1, 2); return err },
		}
		for name, f := range calls {
			err := f()
			if assert.Error(t, err, "%s(%v)", name, dt) {
				assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%s(%v)", name, dt)
				assert.Contains(t, err.Error(), dt.String(), "%s(%v): the error names the dtype", name, dt)
			}
		}
		assert.False(t, dt.Valid())
	}
}

// The single-precision constructors make tensors of their dtype that hold the
// slice they are given, and the accessors read and write through it.
func TestSingleConstructors(t *testing.T) {
	data := []float32{1, 2.5, -3, 4}
	x, err := tensor.FromFloat32(data, 2, 2)
	require.NoError(t, err)
	assert.Equal(t, f32, x.DType())
	assert.Equal(t, "float32[2 2] [[1 2.5] [-3 4]]", x.String())
	x.Set(7.25, 1, 0)
	assert.Equal(t, float32(7.25), data[2], "Set writes the caller's slice")
	assert.Equal(t, complex(2.5, 0), x.At(0, 1))
	assert.Equal(t, 4.0, x.AtFloat64(1, 1))
	assert.Nil(t, x.Float64s())
	assert.Equal(t, data, x.Float32s())

	z, err := tensor.FromComplex64([]complex64{1 + 2i, 0.5}, 2)
	require.NoError(t, err)
	assert.Equal(t, "complex64[2] [(1+2i) (0.5+0i)]", z.String())
	assert.Equal(t, complex128(1+2i), z.At(0))
	z.SetFloat64(3, 1)
	assert.Equal(t, []complex64{1 + 2i, 3}, z.Complex64s())
	assert.Nil(t, z.Complex128s())

	_, err = tensor.FromFloat32(data, 3)
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.Equal(t, "float32[]", tensor.ScalarFloat32(1).Describe())
	assert.Equal(t, "complex64[]", tensor.ScalarComplex64(1i).Describe())
	s, err := tensor.ScalarOf(c64, 1+1i)
	require.NoError(t, err)
	assert.Equal(t, []complex64{1 + 1i}, s.Complex64s())
	// float32 rounds: 0.1 is printed as float32's shortest form.
	s, err = tensor.ScalarOf(f32, 0.1)
	require.NoError(t, err)
	assert.Equal(t, "float32[] 0.1", s.String())
}

// Views (slice, reshape, transpose, permute, broadcast) carry the dtype and read
// the same storage; Clone and Copy copy it; Real, Imag, Conj and AsComplex keep
// the precision.
func TestSingleViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []tensor.DType{f32, c64} {
		x := tensor.RandN(rng, dt, 3, 4)
		wide, err := tensor.AsType(x, tensor.PromoteTypes(dt, f64))
		require.NoError(t, err)
		xt, err := x.Transpose(0, 1)
		require.NoError(t, err)
		wt, _ := wide.Transpose(0, 1)
		sl, err := xt.Slice(0, 1, 4, 2)
		require.NoError(t, err)
		ws, _ := wt.Slice(0, 1, 4, 2)
		p, err := sl.Permute(1, 0)
		require.NoError(t, err)
		wp, _ := ws.Permute(1, 0)
		r, err := p.Reshape(-1)
		require.NoError(t, err)
		wr, _ := wp.Reshape(-1)
		b, err := r.Reshape(1, 6)
		require.NoError(t, err)
		bb, err := b.BroadcastTo(2, 6)
		require.NoError(t, err)
		wbb, _ := wr.BroadcastTo(2, 6)
		for _, v := range []*tensor.Dense{xt, sl, p, r, bb} {
			assert.Equal(t, dt, v.DType(), v.Describe())
		}
		assert.Equal(t, elems(wbb), elems(bb), "%v views read the storage in the same places", dt)
		c := bb.Clone()
		assert.Equal(t, dt, c.DType())
		assert.True(t, c.IsContiguous())
		assert.Equal(t, elems(bb), elems(c))
		dst := tensor.New(dt, 2, 6)
		require.NoError(t, tensor.Copy(dst, bb))
		assert.Equal(t, elems(bb), elems(dst))
		assert.ErrorIs(t, tensor.Copy(tensor.New(tensor.PromoteTypes(dt, f64), 2, 6), bb), cr.ErrShapeMismatch, "Copy does not convert")

		assert.Equal(t, dt.RealType(), x.Real().DType())
		assert.Equal(t, dt.RealType(), x.Imag().DType())
		assert.Equal(t, dt, x.Conj().DType())
		assert.Equal(t, dt.Complex(), x.AsComplex().DType())
		for i, v := range elems(x) {
			idx := []int{i / 4, i % 4}
			assert.Equal(t, real(v), x.Real().AtFloat64(idx...))
			assert.Equal(t, imag(v), x.Imag().AtFloat64(idx...))
			assert.Equal(t, complex(real(v), -imag(v)), x.Conj().At(idx...))
			assert.Equal(t, v, x.AsComplex().At(idx...))
		}
	}
}

// AsType converts between every pair of dtypes: widening is exact, narrowing
// rounds to nearest, complex to real keeps the real part, and the same dtype
// returns the tensor itself. A strided view converts as its elements.
func TestAsType(t *testing.T) {
	x, err := tensor.FromComplex128([]complex128{0.1 + 0.2i, -1e40, 3 - 4i, complex(math.Inf(1), 0)}, 2, 2)
	require.NoError(t, err)
	xt, _ := x.Transpose(0, 1)
	for _, from := range tensor.AllDTypes() {
		src, err := tensor.AsType(xt, from)
		require.NoError(t, err)
		same, err := tensor.AsType(src, from)
		require.NoError(t, err)
		assert.Same(t, src, same)
		for _, to := range tensor.AllDTypes() {
			y, err := tensor.AsType(src, to)
			require.NoError(t, err)
			assert.Equal(t, to, y.DType())
			assert.Equal(t, []int{2, 2}, y.Shape())
			forEachIndex([]int{2, 2}, func(idx []int) {
				v := src.At(idx...)
				want := v
				if !to.IsComplex() {
					want = complex(real(v), 0)
				}
				if to.IsSingle() {
					want = complex(float64(float32(real(want))), float64(float32(imag(want))))
				}
				assert.Equal(t, want, y.At(idx...), "%v to %v at %v", from, to, idx)
			})
		}
	}
	_, err = tensor.AsType(nil, f32)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// Random tensors and Full work in every dtype; single precision holds the
// double-precision draws rounded.
func TestSingleRandom(t *testing.T) {
	for _, pair := range [][2]tensor.DType{{f32, f64}, {c64, c128}} {
		a := tensor.RandN(rand.New(rand.NewPCG(4, 5)), pair[0], 50)
		b := tensor.RandN(rand.New(rand.NewPCG(4, 5)), pair[1], 50)
		assert.Equal(t, pair[0], a.DType())
		nb, err := tensor.AsType(b, pair[0])
		require.NoError(t, err)
		assert.Equal(t, elems(nb), elems(a))
		u := tensor.RandUniform(rand.New(rand.NewPCG(4, 5)), pair[0], -1, 1, 50)
		for _, v := range elems(u) {
			assert.True(t, real(v) >= -1 && real(v) <= 1 && imag(v) >= -1 && imag(v) <= 1)
		}
		f := tensor.Full(pair[0], 0.1+2i, 3)
		assert.Equal(t, pair[0], f.DType())
		want := complex(float64(float32(0.1)), 0)
		if pair[0].IsComplex() {
			want = complex128(complex64(0.1 + 2i))
		}
		assert.Equal(t, want, f.At(2))
	}
}

// The creation functions with a dtype are the float64 ones rounded once.
func TestCreationOf(t *testing.T) {
	e, err := tensor.EyeOf(c64, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, "complex64[2 3] [[(1+0i) (0+0i) (0+0i)] [(0+0i) (1+0i) (0+0i)]]", e.String())
	a, err := tensor.ArangeOf(f32, 0, 1, 0.25)
	require.NoError(t, err)
	assert.Equal(t, "float32[4] [0 0.25 0.5 0.75]", a.String())
	l, err := tensor.LinspaceOf(f32, 0, 1, 11)
	require.NoError(t, err)
	l64, _ := tensor.Linspace(0, 1, 11)
	for i, v := range l64.Float64s() {
		assert.Equal(t, float32(v), l.Float32s()[i])
	}
	_, err = tensor.ArangeOf(f32, 0, 1, 0)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// Binary arithmetic promotes by PromoteTypes and computes single-precision results
// in single precision; broadcasting and strided operands work as in float64.
func TestSingleArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, da := range tensor.AllDTypes() {
		for _, db := range tensor.AllDTypes() {
			a := tensor.RandN(rng, da, 3, 1)
			bt, _ := tensor.RandN(rng, db, 4, 3).Transpose(0, 1)
			for name, f := range map[string]func(a, b *tensor.Dense) (*tensor.Dense, error){
				"add": tensor.Add, "sub": tensor.Sub, "mul": tensor.Mul, "div": tensor.Div,
			} {
				got, err := f(a, bt)
				require.NoError(t, err)
				dt := tensor.PromoteTypes(da, db)
				require.Equal(t, dt, got.DType(), "%s %v %v", name, da, db)
				// The reference: the operands converted to dt first, then computed in
				// double precision and rounded once; single-precision results agree
				// to a few ulp.
				aw, _ := tensor.AsType(a, dt)
				bw, _ := tensor.AsType(bt, dt)
				aw, _ = tensor.AsType(aw, tensor.PromoteTypes(dt, f64))
				bw, _ = tensor.AsType(bw, tensor.PromoteTypes(dt, f64))
				ref, err := f(aw, bw)
				require.NoError(t, err)
				tol := 0.0
				if dt.IsSingle() {
					tol = 4e-7
				}
				assert.True(t, tensor.EqualApprox(got, ref, tol, tol), "%s %v %v: %v vs %v", name, da, db, got, ref)
			}
		}
	}
	s := tensor.Scale(tensor.Ones(f32, 2), 0.5)
	assert.Equal(t, "float32[2] [0.5 0.5]", s.String())
	assert.Equal(t, c64, tensor.Scale(tensor.Ones(f32, 2), 1i).DType())
	assert.Equal(t, c64, tensor.Scale(tensor.Ones(c64, 2), 2).DType())
	ax, err := tensor.AddScaled(tensor.Ones(f32, 2), 3, tensor.Ones(f32, 2))
	require.NoError(t, err)
	assert.Equal(t, "float32[2] [4 4]", ax.String())
	st, err := tensor.SumTo(tensor.Ones(c64, 3, 2), []int{2})
	require.NoError(t, err)
	assert.Equal(t, "complex64[2] [(3+0i) (3+0i)]", st.String())
}

// A float32 sum is accurate to about one rounding whatever the length: the sum of
// 2^22 + 1 ones-and-tenths is within the documented bound of sumWide, where a
// plain float32 loop is off by far more.
func TestSingleSumBound(t *testing.T) {
	n := 1<<22 + 1
	data := make([]float32, n)
	var exact, abs float64
	for i := range data {
		data[i] = float32(1 + 0.1*float64(i%7))
		exact += float64(data[i])
		abs += math.Abs(float64(data[i]))
	}
	x, err := tensor.FromFloat32(data, n)
	require.NoError(t, err)
	got := real(tensor.Sum(x))
	bound := 0x1p-24*math.Abs(exact) + float64(n)*0x1p-53*abs
	assert.LessOrEqual(t, math.Abs(got-exact), bound)
	var naive float32
	for _, v := range data {
		naive += v
	}
	assert.Greater(t, math.Abs(float64(naive)-exact), 100*bound, "the test case defeats a plain float32 loop")
	// Strided runs too.
	v, err := x.Slice(0, 0, n, 3)
	require.NoError(t, err)
	var exact3 float64
	for i := 0; i < n; i += 3 {
		exact3 += float64(data[i])
	}
	assert.LessOrEqual(t, math.Abs(tensor.SumFloat64(v)-exact3), bound)
}

// MatMul and BatchMatMul of single-precision tensors run in single precision
// and agree with the float64 product of the same values within float32's
// GEMM bound.
func TestSingleMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, dt := range []tensor.DType{f32, c64} {
		a := tensor.RandN(rng, dt, 7, 33)
		b := tensor.RandN(rng, dt, 33, 5)
		bt, _ := tensor.RandN(rng, dt, 5, 33).Transpose(0, 1)
		wide := tensor.PromoteTypes(dt, f64)
		for _, bb := range []*tensor.Dense{b, bt} {
			got, err := tensor.MatMul(a, bb)
			require.NoError(t, err)
			assert.Equal(t, dt, got.DType())
			aw, _ := tensor.AsType(a, wide)
			bw, _ := tensor.AsType(bb, wide)
			ref, err := tensor.MatMul(aw, bw)
			require.NoError(t, err)
			assert.True(t, tensor.EqualApprox(got, ref, 40*0x1p-24*8, 0), "%v", dt)
		}
		ba := tensor.RandN(rng, dt, 3, 4, 6)
		bb := tensor.RandN(rng, dt, 3, 5, 6)
		got, err := tensor.BatchMatMul(ba, bb, false, true)
		require.NoError(t, err)
		aw, _ := tensor.AsType(ba, wide)
		bw, _ := tensor.AsType(bb, wide)
		ref, _ := tensor.BatchMatMul(aw, bw, false, true)
		assert.Equal(t, dt, got.DType())
		assert.True(t, tensor.EqualApprox(got, ref, 1e-5, 1e-5), "%v batch", dt)
	}
	mixed, err := tensor.MatMul(tensor.Ones(f32, 2, 2), tensor.Ones(c128, 2, 2))
	require.NoError(t, err)
	assert.Equal(t, c128, mixed.DType())
}

// The Space operations the engine uses (accumulation, the inner product, element
// access, i times a tangent, finiteness) work in single precision.
func TestSingleSpace(t *testing.T) {
	var sp tensor.Space
	rng := rand.New(rand.NewPCG(10, 11))
	for _, dt := range []tensor.DType{f32, c64} {
		a, b := tensor.RandN(rng, dt, 4, 3), tensor.RandN(rng, dt, 4, 3)
		wide := tensor.PromoteTypes(dt, f64)
		aw, _ := tensor.AsType(a, wide)
		bw, _ := tensor.AsType(b, wide)
		got, err := sp.Inner(a, b)
		require.NoError(t, err)
		want, _ := sp.Inner(aw, bw)
		assert.InDelta(t, want, got, 1e-12, "%v inner in double precision", dt)
		acc := a.Clone()
		acc, err = sp.Accumulate(acc, b)
		require.NoError(t, err)
		sum, _ := tensor.Add(a, b)
		assert.Equal(t, elems(sum), elems(acc))
		_, err = sp.Accumulate(acc, bw)
		assert.ErrorIs(t, err, cr.ErrShapeMismatch, "no silent promotion of a cotangent")
		e := sp.Elements(a)
		back, err := sp.FromElements(a, e)
		require.NoError(t, err)
		assert.Equal(t, elems(a), elems(back))
		assert.Equal(t, dt, back.DType())
		mi := sp.MulI(a)
		assert.Equal(t, c64, mi.DType())
		assert.Equal(t, 1i*a.At(1, 2), mi.At(1, 2))
		assert.True(t, sp.IsFinite(a))
		a.Set(complex(math.Inf(1), 0), 0, 0)
		assert.False(t, sp.IsFinite(a))
		assert.Equal(t, dt.String(), sp.DType(a))
	}
}

// gonum interop converts single precision to float64 / complex128.
func TestSingleGonum(t *testing.T) {
	x, _ := tensor.FromFloat32([]float32{1, 2, 3, 4.5}, 2, 2)
	m, err := x.ToMat()
	require.NoError(t, err)
	assert.Equal(t, 4.5, m.At(1, 1))
	z, _ := tensor.FromComplex64([]complex64{1, 2i, 3, 4}, 2, 2)
	_, err = z.ToMat()
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	cm, err := z.ToCMat()
	require.NoError(t, err)
	assert.Equal(t, 2i, cm.At(0, 1))
}

// .npz archives hold single-precision members, read back bit for bit.
func TestSingleNPZ(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	arrays := map[string]*tensor.Dense{}
	for _, dt := range tensor.AllDTypes() {
		arrays[dt.String()] = tensor.RandN(rng, dt, 2, 3)
	}
	var buf bytes.Buffer
	require.NoError(t, tensor.SaveNPZ(&buf, arrays))
	got, err := tensor.LoadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	for name, want := range arrays {
		assert.True(t, sameTensor(got[name], want), name)
	}
}

// Describe and the errors that name a tensor name its dtype.
func TestSingleDescribe(t *testing.T) {
	x := tensor.New(c64, 2, 0)
	assert.Equal(t, "complex64[2 0]", x.Describe())
	_, err := tensor.Add(tensor.New(f32, 2), tensor.New(f32, 3))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	err = tensor.Copy(tensor.New(f64, 2), tensor.New(f32, 2))
	assert.True(t, errors.Is(err, cr.ErrShapeMismatch) && strings.Contains(err.Error(), "float32[2]"), "%v", err)
	assert.Equal(t, "DType(9)", tensor.DType(9).String())
	assert.Equal(t, fmt.Sprint(tensor.AllDTypes()), "[float64 complex128 float32 complex64]")
}

// Example of the single-precision dtypes: a float32 tensor, its promotion with a
// float64 one (PyTorch's table) and an explicit conversion.
func ExampleAsType() {
	x, _ := tensor.FromFloat32([]float32{0.1, 2}, 2)
	y, _ := tensor.FromFloat64([]float64{1, 1}, 2)
	s, _ := tensor.Add(x, y)
	fmt.Println(x)
	fmt.Println(s.DType(), tensor.PromoteTypes(tensor.Float32, tensor.Complex64))
	z, _ := tensor.AsType(x, tensor.Complex64)
	fmt.Println(z)
	// Output:
	// float32[2] [0.1 2]
	// float64 complex64
	// complex64[2] [(0.1+0i) (2+0i)]
}

// CheckInputs refuses single-precision and invalid-dtype inputs with an error
// wrapping ErrDTypeNotSupported that names the op, the input and the dtype;
// CheckInputsAll and CheckApplyAll accept the four dtypes; CheckDTypes takes the
// list of accepted dtypes.
func TestCheckDTypes(t *testing.T) {
	bad, _ := tensor.Alloc(f64, 2)
	for _, tc := range []struct {
		name  string
		err   error
		wants []string
	}{
		{"float32", opkit.CheckInputs("myop", []*tensor.Dense{tensor.New(f64, 2), tensor.New(f32, 2)}, 2), []string{"myop", "float32", "input 1"}},
		{"complex64", opkit.CheckInputs("myop", []*tensor.Dense{tensor.New(c64, 2, 1)}, 1), []string{"myop", "complex64[2 1]", "input 0"}},
		{"invalid", opkit.CheckDTypes("op2", []*tensor.Dense{new(tensor.Dense)}), []string{"op2", "invalid dtype DType(0)"}},
		{"unary", func() error { _, err := opkit.CheckUnary("op3", []*tensor.Dense{tensor.New(f32, 3)}, 0); return err }(), []string{"op3", "float32"}},
		{"list", opkit.CheckDTypes("op4", []*tensor.Dense{bad, tensor.New(c128)}, f64), []string{"op4", "complex128", "input 1"}},
		{"all ok", opkit.CheckInputsAll("op5", []*tensor.Dense{tensor.New(f32), tensor.New(c64), tensor.New(f64), tensor.New(c128)}, 4), nil},
		{"apply all ok", opkit.CheckApplyAll("op6", make([]cr.NodeID, 1), []*tensor.Dense{tensor.New(c64)}, 1), nil},
		{"float64 ok", opkit.CheckInputs("op7", []*tensor.Dense{tensor.New(f64), tensor.New(c128)}, 2), nil},
	} {
		if tc.wants == nil {
			assert.NoError(t, tc.err, tc.name)
			continue
		}
		if assert.Error(t, tc.err, tc.name) {
			assert.ErrorIs(t, tc.err, tensor.ErrDTypeNotSupported, tc.name)
			assert.ErrorIs(t, tc.err, cr.ErrInvalidArgument, tc.name)
			for _, w := range tc.wants {
				assert.Contains(t, tc.err.Error(), w, tc.name)
			}
		}
	}
	// The count and nil checks come first, as before.
	err := opkit.CheckInputs("op8", []*tensor.Dense{tensor.New(f32)}, 2)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.NotErrorIs(t, err, tensor.ErrDTypeNotSupported)
}

// CastOp casts within a kind, with the cast back as its pullback, and refuses a
// cast between real and complex.
func TestCastOp(t *testing.T) {
	x, _ := tensor.FromFloat32([]float32{1.5, -2}, 2)
	ys, err := cr.EvalMulti(opkit.CastOp(f64), x)
	require.NoError(t, err)
	assert.Equal(t, "float64[2] [1.5 -2]", ys[0].String())
	in := []cr.NodeID{cr.NewNodeID(1, 1)}
	y := make([]*tensor.Dense, 1)
	r, err := opkit.CastOp(f64).Apply(in, []*tensor.Dense{x}, y)
	require.NoError(t, err)
	c, err := r.Pullback([]*tensor.Dense{tensor.Ones(f64, 2)}, []bool{true}, nil)
	require.NoError(t, err)
	assert.Equal(t, "float32[2] [1 1]", c[0].Value.String())
	for _, bad := range []tensor.DType{c64, c128, 0} {
		_, err = cr.EvalMulti(opkit.CastOp(bad), x)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument, "%v", bad)
	}
}

// GemmBatch in float32 and complex64, on the packed kernels and under UseBLAS64
// (gonum's blas32 / cblas64), for the general and the matrix-vector shapes, agrees
// with the float64 product of the same values within the documented bound.
func TestSingleGemmBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	for _, blas := range []bool{false, true} {
		tensor.UseBLAS64(blas)
		for _, mnk := range [][3]int{{9, 7, 40}, {1, 6, 33}, {6, 1, 33}, {5, 4, 1}} {
			m, n, k := mnk[0], mnk[1], mnk[2]
			a := tensor.RandN(rng, f32, 2, m, k)
			b := tensor.RandN(rng, f32, 2, k, n)
			c := make([]float32, 2*m*n)
			require.NoError(t, tensor.GemmBatch(false, false, m, n, k, 1, a.Float32s(), k, m*k, b.Float32s(), n, k*n, 0, c, n, m*n, 2))
			aw, _ := tensor.AsType(a, f64)
			bw, _ := tensor.AsType(b, f64)
			want, err := tensor.BatchMatMul(aw, bw, false, false)
			require.NoError(t, err)
			got, _ := tensor.FromFloat32(c, 2, m, n)
			bound := float64(k+4) * 0x1p-24 * 4 * float64(k) // |a||b| ~ 1 per term, with margin
			assert.True(t, tensor.EqualApprox(got, want, bound, 0), "blas %v %v", blas, mnk)

			za := tensor.RandN(rng, c64, m, k)
			zb := tensor.RandN(rng, c64, k, n)
			zc, err := tensor.MatMul(za, zb)
			require.NoError(t, err)
			zaw, _ := tensor.AsType(za, c128)
			zbw, _ := tensor.AsType(zb, c128)
			zwant, _ := tensor.MatMul(zaw, zbw)
			assert.Equal(t, c64, zc.DType())
			assert.True(t, tensor.EqualApprox(zc, zwant, 2*bound, 0), "complex blas %v %v", blas, mnk)
		}
	}
	tensor.UseBLAS64(false)
}

// CheckValidDTypes accepts the four dtypes and refuses only an invalid one.
func TestCheckValidDTypes(t *testing.T) {
	var x []*tensor.Dense
	for _, dt := range tensor.AllDTypes() {
		x = append(x, tensor.New(dt, 2))
	}
	assert.NoError(t, opkit.CheckValidDTypes("op", append(x, nil)))
	err := opkit.CheckValidDTypes("op9", append(x, new(tensor.Dense)))
	assert.ErrorIs(t, err, tensor.ErrDTypeNotSupported)
	assert.Contains(t, err.Error(), "op9")
	assert.Contains(t, err.Error(), "input 4")
}

package elementwise_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// pullback applies op at xs and pulls ybar back, returning y and the cotangents in
// input order.
func pullback(t *testing.T, op cr.Op[*tensor.Dense], ybar *tensor.Dense, xs ...*tensor.Dense) (*tensor.Dense, []*tensor.Dense) {
	t.Helper()
	ids := make([]cr.NodeID, len(xs))
	for k := range ids {
		ids[k] = cr.NewNodeID(1, k)
	}
	y, rule, err := recordtest.Apply1(op, ids, xs)
	require.NoError(t, err)
	cs, err := recordtest.Pullback1(rule, ybar, nil)
	require.NoError(t, err)
	require.Len(t, cs, len(xs))
	g := make([]*tensor.Dense, len(xs))
	for k, c := range cs {
		require.Equal(t, ids[k], c.Node)
		g[k] = c.Value
	}
	return y, g
}

func f64(t *testing.T, v []float64, shape ...int) *tensor.Dense {
	t.Helper()
	x, err := tensor.FromFloat64(v, shape...)
	require.NoError(t, err)
	return x
}

func c128(t *testing.T, v []complex128, shape ...int) *tensor.Dense {
	t.Helper()
	x, err := tensor.FromComplex128(v, shape...)
	require.NoError(t, err)
	return x
}

// TestRemainder: PyTorch's remainder takes the sign of the divisor, and its partial
// in b is -floor(a/b) from PyTorch's floor division, also where a/b is an integer.
func TestRemainder(t *testing.T) {
	nan := math.NaN()
	a := f64(t, []float64{5.5, -5.5, 5.5, -5.5, 6, -6, 1, 1, 1e308, 3}, 10)
	b := f64(t, []float64{2, 2, -2, -2, 3, 3, 0.1, 0, 1e-308, math.Inf(1)}, 10)
	y, g := pullback(t, elementwise.RemainderOp, tensor.Ones(tensor.Float64, 10), a, b)
	// The float64 0.1 is a little more than 1/10, so 1 = 9 * 0.1 + 0.09999999999999995
	// and the floor division is 9 (Python's 1 // 0.1), where floor(1/0.1) = 10.
	negZero := math.Copysign(0, -1)
	wantY := []float64{1.5, 0.5, -0.5, -1.5, 0, negZero, math.Mod(1, 0.1), nan, math.Mod(1e308, 1e-308), 3}
	wantGB := []float64{-2, 3, 3, -2, -2, 2, -9, math.Inf(-1), math.Inf(-1), negZero}
	for i := range wantY {
		same(t, wantY[i], y.Float64s()[i], "y at %d", i)
		same(t, 1, g[0].Float64s()[i], "f_a at %d", i)
		same(t, wantGB[i], g[1].Float64s()[i], "f_b at %d", i)
	}
	r, err := elementwise.Remainder(f64(t, []float64{7}), f64(t, []float64{-3}))
	require.NoError(t, err)
	assert.Equal(t, []float64{-2}, r.Float64s())
	_, err = elementwise.Remainder(tensor.New(tensor.Complex128, 2), tensor.New(tensor.Complex128, 2))
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// same checks that got is want, NaN matching NaN and -0 only -0.
func same(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	ok := got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(want) && math.IsNaN(got)
	assert.True(t, ok, append([]any{msg + ": got %v, want %v"}, append(args, got, want)...)...)
}

// TestAlpha: add and sub with alpha, and their errors for a complex alpha on real
// operands.
func TestAlpha(t *testing.T) {
	a, b := f64(t, []float64{1, 2}, 2), f64(t, []float64{3, 4}, 2)
	y, g := pullback(t, elementwise.SubAlphaOp(2), f64(t, []float64{1, -1}, 2), a, b)
	assert.Equal(t, []float64{-5, -6}, y.Float64s())
	assert.Equal(t, []float64{1, -1}, g[0].Float64s())
	assert.Equal(t, []float64{-2, 2}, g[1].Float64s())
	y, err := elementwise.AddAlpha(a, b, -0.5)
	require.NoError(t, err)
	assert.Equal(t, []float64{-0.5, 0}, y.Float64s())
	assert.Same(t, elementwise.AddOp, elementwise.AddAlphaOp(1))
	assert.Same(t, elementwise.SubOp, elementwise.SubAlphaOp(1))

	_, err = elementwise.AddAlpha(a, b, 1i)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	// With a complex operand the complex alpha applies: bbar = conj(alpha) ybar.
	bc := c128(t, []complex128{3, 4i}, 2)
	y, g = pullback(t, elementwise.AddAlphaOp(2i), c128(t, []complex128{1, 1i}, 2), a, bc)
	assert.Equal(t, []complex128{1 + 6i, -6}, y.Complex128s())
	assert.Equal(t, []float64{1, 0}, g[0].Float64s())
	assert.Equal(t, []complex128{-2i, 2}, g[1].Complex128s())
}

// TestFill: fill is constant, and its cotangent is exactly zero, shaped like the
// input, for every shape and dtype; a complex value does not fit a float64 tensor.
func TestFill(t *testing.T) {
	for _, x := range []*tensor.Dense{
		f64(t, []float64{1, -2, 3, 4, 5, 6}, 2, 3), f64(t, []float64{7}), tensor.New(tensor.Float64, 1, 0, 3),
		c128(t, []complex128{1i, 2}, 2),
	} {
		ybar := tensor.Space{}.Rand(x, nil)
		y, g := pullback(t, elementwise.FillOp(2), ybar, x)
		assert.Equal(t, x.Shape(), y.Shape())
		assert.Equal(t, x.DType(), y.DType())
		assert.Equal(t, x.Shape(), g[0].Shape())
		assert.Equal(t, x.DType(), g[0].DType())
		for i, v := range y.AsComplex().Complex128s() {
			assert.Equal(t, complex128(2), v, "y at %d", i)
		}
		for i, v := range g[0].AsComplex().Complex128s() {
			assert.Zero(t, v, "xbar at %d", i)
		}
	}
	y, err := elementwise.Fill(c128(t, []complex128{1, 2}, 2), 1-1i)
	require.NoError(t, err)
	assert.Equal(t, []complex128{1 - 1i, 1 - 1i}, y.Complex128s())
	_, err = elementwise.Fill(f64(t, []float64{1}, 1), 1-1i)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "fill")
}

// TestCasts: positive copies, cdouble promotes (a float64 input gets Re ybar), and
// double is RealOp.
func TestCasts(t *testing.T) {
	x := f64(t, []float64{1.5, -2}, 2)
	ybar := c128(t, []complex128{1 + 2i, 3 - 4i}, 2)
	y, g := pullback(t, elementwise.CdoubleOp, ybar, x)
	assert.Equal(t, []complex128{1.5, -2}, y.Complex128s())
	assert.Equal(t, []float64{1, 3}, g[0].Float64s())
	y, err := elementwise.Cdouble(ybar)
	require.NoError(t, err)
	assert.Equal(t, ybar.Complex128s(), y.Complex128s())

	p, err := elementwise.Positive(x)
	require.NoError(t, err)
	assert.Equal(t, x.Float64s(), p.Float64s())
	p.Float64s()[0] = 9
	assert.Equal(t, 1.5, x.Float64s()[0], "Positive returns a fresh tensor")
	y, g = pullback(t, elementwise.PositiveOp, ybar, ybar)
	assert.Equal(t, ybar.Complex128s(), y.Complex128s())
	assert.Equal(t, ybar.Complex128s(), g[0].Complex128s())
}

// TestComplexAndPolar: complex(re, im) and polar(abs, angle) build complex128 from
// float64 (exactly, also for non-finite parts), their float64 operands get real
// cotangents, and complex operands are an error.
func TestComplexAndPolar(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	re, im := f64(t, []float64{1, inf, math.Copysign(0, -1)}, 3), f64(t, []float64{nan, 2, -3}, 3)
	ybar := c128(t, []complex128{1 + 2i, 3 - 4i, -1i}, 3)
	y, g := pullback(t, elementwise.ComplexOp, ybar, re, im)
	for i, want := range []complex128{complex(1, nan), complex(inf, 2), complex(math.Copysign(0, -1), -3)} {
		got := y.Complex128s()[i]
		same(t, real(want), real(got), "Re y at %d", i)
		same(t, imag(want), imag(got), "Im y at %d", i)
	}
	assert.Equal(t, []float64{1, 3, 0}, g[0].Float64s())
	assert.Equal(t, []float64{2, -4, -1}, g[1].Float64s())

	// Broadcast: a scalar imaginary part gets the sum of Im ybar.
	y, g = pullback(t, elementwise.ComplexOp, ybar, re, f64(t, []float64{5}))
	assert.Equal(t, []int{3}, y.Shape())
	assert.Equal(t, []int{}, g[1].Shape())
	assert.Equal(t, []float64{2 - 4 - 1}, g[1].Float64s())

	r, th := f64(t, []float64{2, 0, -1}, 3), f64(t, []float64{math.Pi / 2, 1, 0}, 3)
	y, g = pullback(t, elementwise.PolarOp, ybar, r, th)
	for i, want := range []complex128{2i, 0, -1} {
		assert.InDelta(t, 0, cmplxAbs(y.Complex128s()[i]-want), 1e-15, "y at %d", i)
	}
	// rbar = Re(e^(-i theta) ybar); thetabar = Im(conj(y) ybar).
	s1, c1 := math.Sincos(1)
	wantR := []float64{2, 3*c1 - 4*s1, 0}
	wantTh := []float64{-2, 0, 1}
	for i := range wantR {
		assert.InDelta(t, wantR[i], g[0].Float64s()[i], 1e-15, "rbar at %d", i)
		assert.InDelta(t, wantTh[i], g[1].Float64s()[i], 1e-15, "thetabar at %d", i)
	}

	for _, op := range []cr.Op[*tensor.Dense]{elementwise.ComplexOp, elementwise.PolarOp} {
		_, err := cr.Eval(op, ybar, re)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.Contains(t, err.Error(), op.Name())
	}
	z, err := elementwise.Polar(f64(t, []float64{1}), f64(t, []float64{math.Pi}))
	require.NoError(t, err)
	assert.Equal(t, []int{}, z.Shape())
	z, err = elementwise.Complex(f64(t, []float64{1}), f64(t, []float64{2}))
	require.NoError(t, err)
	assert.Equal(t, []complex128{1 + 2i}, z.Complex128s())
}

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

package elementwise_test

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestUnaryPrimal compares each op with a reference written from package math (or
// math/cmplx) element by element, on a transposed (non-contiguous) input.
func TestUnaryPrimal(t *testing.T) {
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	cases := []struct {
		name string
		f    func(*tensor.Dense) (*tensor.Dense, error)
		lo   float64
		ref  func(float64) float64
		refc func(complex128) complex128 // nil: not checked on complex128
	}{
		{"neg", elementwise.Neg, -3, func(x float64) float64 { return -x }, func(z complex128) complex128 { return -z }},
		{"exp", elementwise.Exp, -3, math.Exp, cmplx.Exp},
		{"expm1", elementwise.Expm1, -3, math.Expm1, func(z complex128) complex128 { return cmplx.Exp(z) - 1 }},
		{"log", elementwise.Log, 0.1, math.Log, cmplx.Log},
		{"log1p", elementwise.Log1p, 0.1, math.Log1p, func(z complex128) complex128 { return cmplx.Log(1 + z) }},
		{"sqrt", elementwise.Sqrt, 0.1, math.Sqrt, cmplx.Sqrt},
		{"rsqrt", elementwise.Rsqrt, 0.1, func(x float64) float64 { return 1 / math.Sqrt(x) }, func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }},
		{"square", elementwise.Square, -3, func(x float64) float64 { return x * x }, func(z complex128) complex128 { return z * z }},
		{"reciprocal", elementwise.Reciprocal, 0.1, func(x float64) float64 { return 1 / x }, func(z complex128) complex128 { return 1 / z }},
		{"sin", elementwise.Sin, -3, math.Sin, cmplx.Sin},
		{"cos", elementwise.Cos, -3, math.Cos, cmplx.Cos},
		{"tan", elementwise.Tan, -1, math.Tan, cmplx.Tan},
		{"sinh", elementwise.Sinh, -3, math.Sinh, cmplx.Sinh},
		{"cosh", elementwise.Cosh, -3, math.Cosh, cmplx.Cosh},
		{"tanh", elementwise.Tanh, -3, math.Tanh, cmplx.Tanh},
		{"asin", elementwise.Asin, -0.9, math.Asin, cmplx.Asin},
		{"acos", elementwise.Acos, -0.9, math.Acos, cmplx.Acos},
		{"atan", elementwise.Atan, -0.9, math.Atan, cmplx.Atan},
		{"asinh", elementwise.Asinh, -0.9, math.Asinh, cmplx.Asinh},
		{"acosh", elementwise.Acosh, 1.1, math.Acosh, cmplx.Acosh},
		{"atanh", elementwise.Atanh, -0.9, math.Atanh, cmplx.Atanh},
		{"sigmoid", elementwise.Sigmoid, -3, sigmoid, func(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }},
		{"logsigmoid", elementwise.LogSigmoid, -3, func(x float64) float64 { return math.Log(sigmoid(x)) }, nil},
		{"softplus", elementwise.Softplus, -3, func(x float64) float64 { return math.Log(1 + math.Exp(x)) }, nil},
		{"relu", elementwise.Relu, -3, func(x float64) float64 { return math.Max(x, 0) }, nil},
		{"silu", elementwise.Silu, -3, func(x float64) float64 { return x * sigmoid(x) }, nil},
		{"erf", elementwise.Erf, -3, math.Erf, nil},
		{"conj", elementwise.Conj, -3, func(x float64) float64 { return x }, cmplx.Conj},
		{"abs2", elementwise.Abs2, -3, func(x float64) float64 { return x * x },
			func(z complex128) complex128 { return complex(real(z)*real(z)+imag(z)*imag(z), 0) }},
		{"abs", elementwise.Abs, -3, math.Abs, func(z complex128) complex128 { return complex(cmplx.Abs(z), 0) }},
		{"real", elementwise.Real, -3, func(x float64) float64 { return x }, func(z complex128) complex128 { return complex(real(z), 0) }},
		{"angle", elementwise.Angle, -3, func(x float64) float64 { return math.Atan2(0, x) },
			func(z complex128) complex128 { return complex(cmplx.Phase(z), 0) }},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
				if dt == tensor.Complex128 && c.refc == nil {
					continue
				}
				hi := 3.0
				if c.lo < 0 && c.lo > -3 { // symmetric domains: asin, atanh, tan, ...
					hi = -c.lo
				}
				base := tensor.RandUniform(rng, dt, c.lo, hi, 4, 3)
				x, err := base.Transpose(0, 1) // a strided view
				require.NoError(t, err)
				y, err := c.f(x)
				require.NoError(t, err)
				require.Equal(t, []int{3, 4}, y.Shape())
				eachIndex(y.Shape(), func(idx []int) {
					var want complex128
					if dt == tensor.Float64 {
						want = complex(c.ref(x.AtFloat64(idx...)), 0)
					} else {
						want = c.refc(x.At(idx...))
					}
					got := y.At(idx...)
					assert.LessOrEqual(t, cmplx.Abs(got-want), 4e-16*max(1, cmplx.Abs(want)), "%s %v at %v", dt, x.At(idx...), idx)
				})
			}
		})
	}
}

// TestBinaryPrimal compares the broadcasting ops with package tensor's arithmetic
// (add, sub, mul, div) and with naive loops through At for the others.
func TestBinaryPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := [][2][]int{{{3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{2, 1, 4}, {3, 1}}, {{}, {5}}, {{4, 1}, {}}, {{0, 3}, {1, 3}}}
	type fn = func(a, b *tensor.Dense) (*tensor.Dense, error)
	for _, c := range []struct {
		name   string
		f, ref fn
		scalar func(a, b complex128) complex128
		cplx   bool
	}{
		{name: "add", f: elementwise.Add, ref: tensor.Add, cplx: true},
		{name: "sub", f: elementwise.Sub, ref: tensor.Sub, cplx: true},
		{name: "mul", f: elementwise.Mul, ref: tensor.Mul, cplx: true},
		{name: "div", f: elementwise.Div, ref: tensor.Div, cplx: true},
		{name: "pow", f: elementwise.Pow, scalar: func(a, b complex128) complex128 { return complex(math.Pow(real(a), real(b)), 0) }},
		{name: "pow complex", f: elementwise.Pow, scalar: cmplx.Pow, cplx: true},
		{name: "maximum", f: elementwise.Maximum, scalar: func(a, b complex128) complex128 { return complex(math.Max(real(a), real(b)), 0) }},
		{name: "minimum", f: elementwise.Minimum, scalar: func(a, b complex128) complex128 { return complex(math.Min(real(a), real(b)), 0) }},
		{name: "atan2", f: elementwise.Atan2, scalar: func(a, b complex128) complex128 { return complex(math.Atan2(real(a), real(b)), 0) }},
		{name: "hypot", f: elementwise.Hypot, scalar: func(a, b complex128) complex128 { return complex(math.Hypot(real(a), real(b)), 0) }},
		{name: "xlogy", f: elementwise.Xlogy, scalar: func(a, b complex128) complex128 { return complex(real(a)*math.Log(real(b)), 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dts := [][2]tensor.DType{{tensor.Float64, tensor.Float64}}
			if c.cplx {
				dts = [][2]tensor.DType{{tensor.Complex128, tensor.Complex128}, {tensor.Float64, tensor.Complex128}, {tensor.Complex128, tensor.Float64}}
			}
			for _, dt := range dts {
				for _, sh := range shapes {
					a := tensor.RandUniform(rng, dt[0], 0.5, 2, sh[0]...)
					b := tensor.RandUniform(rng, dt[1], 0.5, 2, sh[1]...)
					y, err := c.f(a, b)
					require.NoError(t, err)
					assert.Equal(t, tensor.ResultDType(dt[0], dt[1]), y.DType())
					if c.ref != nil {
						want, err := c.ref(a, b)
						require.NoError(t, err)
						assert.True(t, tensor.EqualApprox(y, want, 0, 0), "%v %v: %v, want %v", a, b, y, want)
						continue
					}
					out, err := tensor.BroadcastShapes(sh[0], sh[1])
					require.NoError(t, err)
					require.Equal(t, out, y.Shape())
					ab, _ := a.BroadcastTo(out...)
					bb, _ := b.BroadcastTo(out...)
					eachIndex(out, func(idx []int) {
						assert.Equal(t, c.scalar(ab.At(idx...), bb.At(idx...)), y.At(idx...), "at %v", idx)
					})
				}
			}
		})
	}
}

// TestBroadcastPullbackSums checks that the cotangent of a broadcast operand is summed
// over the broadcast axes: for y = a * b with b of shape [3] broadcast over [2 3],
// bbar_j = sum_i a_ij ybar_ij.
func TestBroadcastPullbackSums(t *testing.T) {
	a := mustDense(t, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := mustDense(t, []float64{-1, 0.5, 2}, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	ia, ib := tape.Leaf(a), tape.Leaf(b)
	y := tape.Apply(elementwise.MulOp, ia, ib)
	ybar := mustDense(t, []float64{1, 1, 1, 2, 2, 2}, 2, 3)
	g, err := tape.BackwardSeed(y, ybar)
	require.NoError(t, err)
	gb, ok := g.Of(ib)
	require.True(t, ok)
	assert.Equal(t, []float64{1 + 2*4, 2 + 2*5, 3 + 2*6}, gb.Float64s())
	ga, ok := g.Of(ia)
	require.True(t, ok)
	assert.Equal(t, []float64{-1, 0.5, 2, -2, 1, 4}, ga.Float64s())
}

// TestPromotedInputGetsRealCotangent checks real-to-complex promotion: for y = a z
// with real a and complex z, abar = Re(conj(z) ybar), a float64 tensor.
func TestPromotedInputGetsRealCotangent(t *testing.T) {
	a := mustDense(t, []float64{2, -1}, 2)
	z, err := tensor.FromComplex128([]complex128{1 + 2i, 3 - 1i}, 2)
	require.NoError(t, err)
	ybar, err := tensor.FromComplex128([]complex128{1i, 2}, 2)
	require.NoError(t, err)
	_, rule, err := recordtest.Apply1(elementwise.MulOp, []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}, []*tensor.Dense{a, z})
	require.NoError(t, err)
	cs, err := recordtest.Pullback1(rule, ybar, nil)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, tensor.Float64, cs[0].Value.DType())
	assert.Equal(t, []float64{real(cmplx.Conj(1+2i) * 1i), real(cmplx.Conj(3-1i) * 2)}, cs[0].Value.Float64s())
	assert.Equal(t, []complex128{2 * 1i, -1 * 2}, cs[1].Value.Complex128s())
}

func TestErrors(t *testing.T) {
	x := mustDense(t, []float64{1, 2, 3}, 3)
	z, err := tensor.FromComplex128([]complex128{1i, 2}, 2)
	require.NoError(t, err)
	for _, c := range []struct {
		name     string
		op       cr.Op[*tensor.Dense]
		in       []*tensor.Dense
		sentinel error
		mention  string
	}{
		{"relu of complex", elementwise.ReluOp, []*tensor.Dense{z}, cr.ErrInvalidArgument, "relu"},
		{"erf of complex", elementwise.ErfOp, []*tensor.Dense{z}, cr.ErrInvalidArgument, "erf"},
		{"softplus of complex", elementwise.SoftplusOp, []*tensor.Dense{z}, cr.ErrInvalidArgument, "softplus"},
		{"imag of float64", elementwise.ImagOp, []*tensor.Dense{x}, cr.ErrInvalidArgument, "imag"},
		{"softplus with beta 0", elementwise.SoftplusBetaOp(0, 20), []*tensor.Dense{x}, cr.ErrInvalidArgument, "beta"},
		{"maximum of complex", elementwise.MaximumOp, []*tensor.Dense{x, x.AsComplex()}, cr.ErrInvalidArgument, "maximum"},
		{"add of [3] and [2]", elementwise.AddOp, []*tensor.Dense{x, z}, cr.ErrShapeMismatch, "add"},
		{"exp of two inputs", elementwise.ExpOp, []*tensor.Dense{x, x}, cr.ErrInvalidArgument, "exp"},
		{"mul of one input", elementwise.MulOp, []*tensor.Dense{x}, cr.ErrInvalidArgument, "mul"},
		{"exp of nil", elementwise.ExpOp, []*tensor.Dense{nil}, cr.ErrInvalidArgument, "exp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := make([]cr.NodeID, len(c.in))
			_, _, err := recordtest.Apply1(c.op, in, c.in)
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.sentinel), "%v", err)
			assert.Contains(t, err.Error(), c.mention)
		})
	}

	t.Run("sticky on a tape", func(t *testing.T) {
		tape := core.NewTape[*tensor.Dense](tensor.Space{})
		id := tape.Apply(elementwise.SoftplusOp, tape.Leaf(z))
		tape.Apply(elementwise.ExpOp, id)
		assert.ErrorIs(t, tape.Err(), cr.ErrInvalidArgument)
		assert.True(t, strings.Contains(tape.Err().Error(), "softplus"))
	})

	t.Run("cotangent of the wrong shape", func(t *testing.T) {
		_, rule, err := recordtest.Apply1(elementwise.ExpOp, []cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{x})
		require.NoError(t, err)
		_, err = recordtest.Pullback1(rule, tensor.New(tensor.Float64, 2), nil)
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	})
}

// TestSecondOrderMatchesClosedForm checks an HVP through the tape against a closed
// form: for phi(x) = sum tanh(x)² (non-quadratic), H v = (2 sech⁴ x - 4 tanh² x sech² x) v.
func TestSecondOrderMatchesClosedForm(t *testing.T) {
	x := mustDense(t, []float64{-1.2, 0.3, 0.9}, 3)
	v := mustDense(t, []float64{0.5, -2, 1}, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	ix := tape.Leaf(x)
	th := tape.Apply(elementwise.TanhOp, ix)
	sq := tape.Apply(elementwise.SquareOp, th)
	require.NoError(t, tape.Err())
	tan, err := tape.ForwardTangents(map[cr.NodeID]*tensor.Dense{ix: v})
	require.NoError(t, err)
	ones := tensor.Ones(tensor.Float64, 3)
	_, gt, err := tape.BackwardWithTangentsSeed(sq, cr.Dual[*tensor.Dense]{Value: ones}, tan)
	require.NoError(t, err)
	hv, ok := gt.Of(ix)
	require.True(t, ok)
	for i, xi := range x.Float64s() {
		s2 := 1 / (math.Cosh(xi) * math.Cosh(xi))
		th := math.Tanh(xi)
		want := (2*s2*s2 - 4*th*th*s2) * v.Float64s()[i]
		assert.InDelta(t, want, hv.Float64s()[i], 1e-14)
	}
}

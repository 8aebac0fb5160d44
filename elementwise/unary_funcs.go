package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/chainrules-go/chainrules/tensor"
)

func negF[T tensor.Element](x T) T          { return -x }
func minusOne[T tensor.Element](_, _ T) T   { return -1 }
func one[T tensor.Element](_, _ T) T        { return 1 }
func zero[T tensor.Element](_, _ T) T       { return 0 }
func two[T tensor.Element](_, _ T) T        { return 2 }
func outY[T tensor.Element](_, y T) T       { return y }
func negY[T tensor.Element](_, y T) T       { return -y }
func yPlus1[T tensor.Element](_, y T) T     { return y + 1 }
func twoX[T tensor.Element](x, _ T) T       { return 2 * x }
func squareF[T tensor.Element](x T) T       { return x * x }
func recipF[T tensor.Element](x T) T        { return 1 / x }
func invX[T tensor.Element](x, _ T) T       { return 1 / x }
func negInvX2[T tensor.Element](x, _ T) T   { return -1 / (x * x) }
func inv1pX[T tensor.Element](x, _ T) T     { return 1 / (1 + x) }
func negInv1pX2[T tensor.Element](x, _ T) T { return -1 / ((1 + x) * (1 + x)) }
func sqrtD1[T tensor.Element](_, y T) T     { return 0.5 / y }
func sqrtD2[T tensor.Element](x, y T) T     { return -0.25 / (y * x) }
func rsqrtD1[T tensor.Element](x, y T) T    { return -0.5 * y / x }
func rsqrtD2[T tensor.Element](x, y T) T    { return 0.75 * y / (x * x) }
func recipD1[T tensor.Element](_, y T) T    { return -y * y }
func recipD2[T tensor.Element](_, y T) T    { return 2 * y * y * y }
func tanD1[T tensor.Element](_, y T) T      { return 1 + y*y }
func tanD2[T tensor.Element](_, y T) T      { return 2 * y * (1 + y*y) }
func tanhD1[T tensor.Element](_, y T) T     { return 1 - y*y }

// Pull fast paths (Func1.Pull) of the commonest real functions: the generic
// loop's arithmetic, without a call per element.
func tanhPull(dst, _, y, yb []float64) {
	y = y[:len(yb)]
	for i, v := range yb {
		dst[i] = (1 - y[i]*y[i]) * v
	}
}
func sigmoidPull(dst, _, y, yb []float64) {
	y = y[:len(yb)]
	for i, v := range yb {
		dst[i] = (y[i] * (1 - y[i])) * v
	}
}
func expPull(dst, _, y, yb []float64) {
	y = y[:len(yb)]
	for i, v := range yb {
		dst[i] = y[i] * v
	}
}
func squarePull(dst, x, _, yb []float64) {
	x = x[:len(yb)]
	for i, v := range yb {
		dst[i] = (2 * x[i]) * v
	}
}
func negPull(dst, _, _, yb []float64) {
	for i, v := range yb {
		dst[i] = -1 * v
	}
}
func passPull(dst, _, _, yb []float64) {
	for i, v := range yb {
		dst[i] = 1 * v
	}
}

// Slice fast paths (Func1.Slice) of the cheap functions that recorded derivatives
// use most.
func squareSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v * v
	}
}
func negSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = -v
	}
}
func oneMinusSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = 1 - v
	}
}

// scaleSlice returns the fast forward of y = a x.
func scaleSlice(a float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = a * v
		}
	}
}

// shiftSlice returns the fast forward of y = x + b.
func shiftSlice(b float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = v + b
		}
	}
}

// scalePull returns the fast pullback of y = a x: a * ybar.
func scalePull(a float64) func(dst, x, y, yb []float64) {
	return func(dst, _, _, yb []float64) {
		for i, v := range yb {
			dst[i] = a * v
		}
	}
}
func tanhD2[T tensor.Element](_, y T) T    { return -2 * y * (1 - y*y) }
func atanD1[T tensor.Element](x, _ T) T    { return 1 / (1 + x*x) }
func atanD2[T tensor.Element](x, _ T) T    { return -2 * x / ((1 + x*x) * (1 + x*x)) }
func atanhD1[T tensor.Element](x, _ T) T   { return 1 / (1 - x*x) }
func atanhD2[T tensor.Element](x, _ T) T   { return 2 * x / ((1 - x*x) * (1 - x*x)) }
func sigmoidD1[T tensor.Element](_, y T) T { return y * (1 - y) }
func sigmoidD2[T tensor.Element](_, y T) T { return y * (1 - y) * (1 - 2*y) }
func sinhD1(x, _ float64) float64          { return math.Cosh(x) }
func coshD1(x, _ float64) float64          { return math.Sinh(x) }
func sinD1(x, _ float64) float64           { return math.Cos(x) }
func cosD1(x, _ float64) float64           { return -math.Sin(x) }
func csinhD1(z, _ complex128) complex128   { return cmplx.Cosh(z) }
func ccoshD1(z, _ complex128) complex128   { return cmplx.Sinh(z) }
func csinD1(z, _ complex128) complex128    { return cmplx.Cos(z) }
func ccosD1(z, _ complex128) complex128    { return -cmplx.Sin(z) }

// asin' = (1 - x²)^(-1/2), asin" = x (1 - x²)^(-3/2); acos is their negative.
func asinD1(x, _ float64) float64 { return 1 / math.Sqrt(1-x*x) }
func asinD2(x, _ float64) float64 { return x / ((1 - x*x) * math.Sqrt(1-x*x)) }
func casinD1(z, _ complex128) complex128 {
	return 1 / cmplx.Sqrt(1-z*z)
}
func casinD2(z, _ complex128) complex128 { return z / ((1 - z*z) * cmplx.Sqrt(1-z*z)) }

// asinh' = (1 + x²)^(-1/2), asinh" = -x (1 + x²)^(-3/2).
func asinhD1(x, _ float64) float64 { return 1 / math.Sqrt(1+x*x) }
func asinhD2(x, _ float64) float64 { return -x / ((1 + x*x) * math.Sqrt(1+x*x)) }
func casinhD1(z, _ complex128) complex128 {
	return 1 / cmplx.Sqrt(1+z*z)
}
func casinhD2(z, _ complex128) complex128 { return -z / ((1 + z*z) * cmplx.Sqrt(1+z*z)) }

// acosh' = 1/(sqrt(x-1) sqrt(x+1)) (the product form is the derivative of the
// principal branch everywhere off the cut; 1/sqrt(x²-1) differs in sign for Re x < 0),
// acosh" = -x acosh' / (x² - 1).
func acoshD1(x, _ float64) float64 { return 1 / (math.Sqrt(x-1) * math.Sqrt(x+1)) }
func acoshD2(x, _ float64) float64 { return -x / ((x*x - 1) * math.Sqrt(x-1) * math.Sqrt(x+1)) }
func cacoshD1(z, _ complex128) complex128 {
	return 1 / (cmplx.Sqrt(z-1) * cmplx.Sqrt(z+1))
}
func cacoshD2(z, _ complex128) complex128 {
	return -z / ((z*z - 1) * cmplx.Sqrt(z-1) * cmplx.Sqrt(z+1))
}

func negate[T tensor.Element](d func(x, y T) T) func(x, y T) T {
	return func(x, y T) T { return -d(x, y) }
}

// cexpm1 returns e^z - 1 accurately near 0:
// Re = expm1(a) cos b - 2 sin²(b/2), Im = e^a sin b.
func cexpm1(z complex128) complex128 {
	a, b := real(z), imag(z)
	s, c := math.Sincos(b)
	h := math.Sin(b / 2)
	return complex(math.Expm1(a)*c-2*h*h, math.Exp(a)*s)
}

// clog1p returns log(1 + z) accurately near 0:
// Re = log1p(2a + a² + b²)/2, Im = atan2(b, 1 + a).
func clog1p(z complex128) complex128 {
	a, b := real(z), imag(z)
	return complex(0.5*math.Log1p(a*(2+a)+b*b), math.Atan2(b, 1+a))
}

func csigmoid(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }

func absF(x float64) float64 { return math.Abs(x) }

// sign is abs' with the subgradient 0 at 0 (PyTorch's sgn); NaN stays NaN.
func sign(x, _ float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// relu keeps NaN (like PyTorch) and maps -0 to 0.
func relu(x float64) float64 {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// reluSlice is relu over a slice (Func1.Slice): max(x, 0), which is relu bit for
// bit (NaN stays NaN, -0 gives +0) and compiles without a branch, where the branch
// of the scalar form mispredicts one element in two on data of random sign.
func reluSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = max(v, 0)
	}
}

// Bits of 1 and +Inf, for reluPull.
const (
	oneBits = 0x3ff0000000000000
	infBits = 0x7ff0000000000000
)

// reluPull is relu's pullback (Func1.Pull): reluD1(x) ybar, the product kept
// (0 times a NaN or an infinite cotangent is NaN, times a negative one -0), as the
// generic loop computes it. relu'(x) is found without a branch: the bits of
// max(x, 0) are non-zero and at most those of +Inf exactly when x > 0.
func reluPull(dst, x, _, yb []float64) {
	x = x[:len(dst)]
	yb = yb[:len(dst)]
	for i, v := range yb {
		b := math.Float64bits(max(x[i], 0))
		m := math.Float64frombits(oneBits * ((b | -b) >> 63) * b2u(b <= infBits))
		dst[i] = m * v
	}
}

// b2u is 1 for true and 0 for false (a SETcc, not a branch).
func b2u(c bool) uint64 {
	var u uint64
	if c {
		u = 1
	}
	return u
}

// reluD1 is relu' with the subgradient 0 at 0.
func reluD1(x, _ float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
}

// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|).
func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(fastExp(-math.Abs(x))) }

// logSigmoid(x) = -softplus(-x) = min(x, 0) - log1p(e^-|x|).
func logSigmoid(x float64) float64 { return math.Min(x, 0) - math.Log1p(fastExp(-math.Abs(x))) }

func logSigmoidD1(x, _ float64) float64 { return sigmoid(-x) }
func logSigmoidD2(x, _ float64) float64 { s := sigmoid(x); return -s * (1 - s) }

func silu(x float64) float64 { return x * sigmoid(x) }
func siluD1(x, _ float64) float64 {
	s := sigmoid(x)
	return s * (1 + x*(1-s))
}
func siluD2(x, _ float64) float64 {
	s := sigmoid(x)
	return s * (1 - s) * (2 + x*(1-2*s))
}

const twoOverSqrtPi = 2 / math.SqrtPi

func erfD1(x, _ float64) float64 { return twoOverSqrtPi * fastExp(-x*x) }
func erfD2(x, _ float64) float64 { return -2 * x * twoOverSqrtPi * fastExp(-x*x) }

// angle of a real number: 0 for x >= 0, pi for x < 0 (NaN stays NaN).
func angleReal(x float64) float64 {
	if x < 0 {
		return math.Pi
	}
	if x != x {
		return x
	}
	return 0
}

// Real-valued functions of z = a + ib, with gradient (g_a, g_b) and Hessian.

func absC(z complex128) float64 { return cmplx.Abs(z) }

// absCD1 is z/|z| in parts, 0 at z = 0 (PyTorch's sgn).
func absCD1(z complex128) (float64, float64) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0
	}
	return real(z) / r, imag(z) / r
}

// absCD2 is (b², -ab, a²)/|z|³; 0 at z = 0 to match the subgradient choice.
func absCD2(z complex128) (float64, float64, float64) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0, 0
	}
	a, b, r3 := real(z), imag(z), r*r*r
	return b * b / r3, -a * b / r3, a * a / r3
}

func abs2C(z complex128) float64                       { return real(z)*real(z) + imag(z)*imag(z) }
func abs2CD1(z complex128) (float64, float64)          { return 2 * real(z), 2 * imag(z) }
func abs2CD2(complex128) (float64, float64, float64)   { return 2, 0, 2 }
func realC(z complex128) float64                       { return real(z) }
func realCD1(complex128) (float64, float64)            { return 1, 0 }
func imagC(z complex128) float64                       { return imag(z) }
func imagCD1(complex128) (float64, float64)            { return 0, 1 }
func linearCD2(complex128) (float64, float64, float64) { return 0, 0, 0 }
func angleC(z complex128) float64                      { return cmplx.Phase(z) }

// angleCD1 is (-b, a)/|z|², 0 at z = 0 (PyTorch's choice).
func angleCD1(z complex128) (float64, float64) {
	a, b := real(z), imag(z)
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0
	}
	return -b / r2, a / r2
}

// angleCD2 is (2ab, b² - a², -2ab)/|z|⁴, 0 at z = 0.
func angleCD2(z complex128) (float64, float64, float64) {
	a, b := real(z), imag(z)
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0, 0
	}
	r4 := r2 * r2
	return 2 * a * b / r4, (b*b - a*a) / r4, -2 * a * b / r4
}

// The specs of the parameter-free ops (ops_unary.go). Formulas that need only
// arithmetic are written once as generic functions and instantiated for float64 and
// complex128.

var (
	negSpec = UnarySpec{Real: Func1[float64]{F: negF[float64], Slice: negSlice, D1: minusOne[float64], D2: zero[float64], Pull: negPull, affine: true},
		Complex: Func1[complex128]{F: negF[complex128], D1: minusOne[complex128], D2: zero[complex128], affine: true}}
	expSpec = UnarySpec{Real: Func1[float64]{F: fastExp, Slice: expSlice, D1: outY[float64], D2: outY[float64], Pull: expPull},
		Complex: Func1[complex128]{F: cmplx.Exp, D1: outY[complex128], D2: outY[complex128]}}
	expm1Spec = UnarySpec{Real: Func1[float64]{F: math.Expm1, D1: yPlus1[float64], D2: yPlus1[float64]},
		Complex: Func1[complex128]{F: cexpm1, D1: yPlus1[complex128], D2: yPlus1[complex128]}}
	logSpec = UnarySpec{Real: Func1[float64]{F: math.Log, D1: invX[float64], D2: negInvX2[float64]},
		Complex: Func1[complex128]{F: cmplx.Log, D1: invX[complex128], D2: negInvX2[complex128]}}
	log1pSpec = UnarySpec{Real: Func1[float64]{F: math.Log1p, D1: inv1pX[float64], D2: negInv1pX2[float64]},
		Complex: Func1[complex128]{F: clog1p, D1: inv1pX[complex128], D2: negInv1pX2[complex128]}}
	sqrtSpec = UnarySpec{Real: Func1[float64]{F: math.Sqrt, D1: sqrtD1[float64], D2: sqrtD2[float64]},
		Complex: Func1[complex128]{F: cmplx.Sqrt, D1: sqrtD1[complex128], D2: sqrtD2[complex128]}}
	rsqrtSpec = UnarySpec{Real: Func1[float64]{F: func(x float64) float64 { return 1 / math.Sqrt(x) }, D1: rsqrtD1[float64], D2: rsqrtD2[float64]},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }, D1: rsqrtD1[complex128], D2: rsqrtD2[complex128]}}
	squareSpec = UnarySpec{Real: Func1[float64]{F: squareF[float64], Slice: squareSlice, D1: twoX[float64], D2: two[float64], Pull: squarePull},
		Complex: Func1[complex128]{F: squareF[complex128], D1: twoX[complex128], D2: two[complex128]}}
	reciprocalSpec = UnarySpec{Real: Func1[float64]{F: recipF[float64], D1: recipD1[float64], D2: recipD2[float64]},
		Complex: Func1[complex128]{F: recipF[complex128], D1: recipD1[complex128], D2: recipD2[complex128]}}
	absSpec = UnarySpec{Real: Func1[float64]{F: absF, D1: sign, D2: zero[float64]},
		ComplexToReal: ComplexToReal{F: absC, Grad: absCD1, Hess: absCD2}}
	sinSpec = UnarySpec{Real: Func1[float64]{F: math.Sin, D1: sinD1, D2: negY[float64]},
		Complex: Func1[complex128]{F: cmplx.Sin, D1: csinD1, D2: negY[complex128]}}
	cosSpec = UnarySpec{Real: Func1[float64]{F: math.Cos, D1: cosD1, D2: negY[float64]},
		Complex: Func1[complex128]{F: cmplx.Cos, D1: ccosD1, D2: negY[complex128]}}
	tanSpec = UnarySpec{Real: Func1[float64]{F: math.Tan, D1: tanD1[float64], D2: tanD2[float64]},
		Complex: Func1[complex128]{F: cmplx.Tan, D1: tanD1[complex128], D2: tanD2[complex128]}}
	sinhSpec = UnarySpec{Real: Func1[float64]{F: math.Sinh, D1: sinhD1, D2: outY[float64]},
		Complex: Func1[complex128]{F: cmplx.Sinh, D1: csinhD1, D2: outY[complex128]}}
	coshSpec = UnarySpec{Real: Func1[float64]{F: math.Cosh, D1: coshD1, D2: outY[float64]},
		Complex: Func1[complex128]{F: cmplx.Cosh, D1: ccoshD1, D2: outY[complex128]}}
	tanhSpec = UnarySpec{Real: Func1[float64]{F: fastTanh, Slice: tanhSlice, D1: tanhD1[float64], D2: tanhD2[float64], Pull: tanhPull},
		Complex: Func1[complex128]{F: cmplx.Tanh, D1: tanhD1[complex128], D2: tanhD2[complex128]}}
	asinSpec = UnarySpec{Real: Func1[float64]{F: math.Asin, D1: asinD1, D2: asinD2},
		Complex: Func1[complex128]{F: cmplx.Asin, D1: casinD1, D2: casinD2}}
	acosSpec = UnarySpec{Real: Func1[float64]{F: math.Acos, D1: negate(asinD1), D2: negate(asinD2)},
		Complex: Func1[complex128]{F: cmplx.Acos, D1: negate(casinD1), D2: negate(casinD2)}}
	atanSpec = UnarySpec{Real: Func1[float64]{F: math.Atan, D1: atanD1[float64], D2: atanD2[float64]},
		Complex: Func1[complex128]{F: cmplx.Atan, D1: atanD1[complex128], D2: atanD2[complex128]}}
	asinhSpec = UnarySpec{Real: Func1[float64]{F: math.Asinh, D1: asinhD1, D2: asinhD2},
		Complex: Func1[complex128]{F: cmplx.Asinh, D1: casinhD1, D2: casinhD2}}
	acoshSpec = UnarySpec{Real: Func1[float64]{F: math.Acosh, D1: acoshD1, D2: acoshD2},
		Complex: Func1[complex128]{F: cmplx.Acosh, D1: cacoshD1, D2: cacoshD2}}
	atanhSpec = UnarySpec{Real: Func1[float64]{F: math.Atanh, D1: atanhD1[float64], D2: atanhD2[float64]},
		Complex: Func1[complex128]{F: cmplx.Atanh, D1: atanhD1[complex128], D2: atanhD2[complex128]}}
	sigmoidSpec = UnarySpec{Real: Func1[float64]{F: sigmoid, Slice: sigmoidSlice, D1: sigmoidD1[float64], D2: sigmoidD2[float64], Pull: sigmoidPull},
		Complex: Func1[complex128]{F: csigmoid, D1: sigmoidD1[complex128], D2: sigmoidD2[complex128]}}
	logSigmoidSpec = UnarySpec{Real: Func1[float64]{F: logSigmoid, Slice: logSigmoidSlice, D1: logSigmoidD1, D2: logSigmoidD2}}
	reluSpec       = UnarySpec{Real: Func1[float64]{F: relu, Slice: reluSlice, D1: reluD1, D2: zero[float64], Pull: reluPull}}
	siluSpec       = UnarySpec{Real: Func1[float64]{F: silu, Slice: siluSlice, D1: siluD1, D2: siluD2}}
	erfSpec        = UnarySpec{Real: Func1[float64]{F: math.Erf, D1: erfD1, D2: erfD2}}
	conjSpec       = UnarySpec{Real: identity, Wirtinger: Wirtinger{F: cmplx.Conj, D1: conjD1, D2: conjD2}}
	realSpec       = UnarySpec{Real: identity, ComplexToReal: ComplexToReal{F: realC, Grad: realCD1, Hess: linearCD2}}
	imagSpec       = UnarySpec{ComplexToReal: ComplexToReal{F: imagC, Grad: imagCD1, Hess: linearCD2}}
	abs2Spec       = UnarySpec{Real: Func1[float64]{F: squareF[float64], D1: twoX[float64], D2: two[float64]},
		ComplexToReal: ComplexToReal{F: abs2C, Grad: abs2CD1, Hess: abs2CD2}}
	angleSpec = UnarySpec{Real: Func1[float64]{F: angleReal, D1: zero[float64], D2: zero[float64]},
		ComplexToReal: ComplexToReal{F: angleC, Grad: angleCD1, Hess: angleCD2}}
)

// conj(z) has f_z = 0, f_zbar = 1 and no second derivatives.
func conjD1(_, _ complex128) (complex128, complex128)             { return 0, 1 }
func conjD2(_, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 }

// identity is y = x on float64.
var identity = Func1[float64]{F: func(x float64) float64 { return x }, D1: one[float64], D2: zero[float64]}

// softplusSpec is softplus with PyTorch's beta and threshold:
// y = log(1 + e^(beta x))/beta, and y = x where beta x > threshold.
func softplusSpec(beta, threshold float64) UnarySpec {
	lin := func(x float64) bool { return x*beta > threshold }
	return UnarySpec{Deriv: softplusDeriv(beta, threshold), Real: Func1[float64]{
		F: func(x float64) float64 {
			if lin(x) {
				return x
			}
			return softplus(beta*x) / beta
		},
		// F on blocks, with e^-|beta x| from the vector kernel.
		Slice: func(dst, x []float64) {
			expNegAbsChunks(dst, x, beta, func(d, xs []float64) {
				d = d[:len(xs)]
				for i, v := range xs {
					if lin(v) {
						d[i] = v
						continue
					}
					d[i] = (math.Max(beta*v, 0) + math.Log1p(d[i])) / beta
				}
			})
		},
		D1: func(x, _ float64) float64 {
			if lin(x) {
				return 1
			}
			return sigmoid(beta * x)
		},
		D2: func(x, _ float64) float64 {
			if lin(x) {
				return 0
			}
			s := sigmoid(beta * x)
			return beta * s * (1 - s)
		}}}
}

// scaleSpec is y = a x, computed in complex128 for complex a.
func scaleSpec(a complex128) UnarySpec {
	ar := real(a)
	return UnarySpec{
		Real: Func1[float64]{F: func(x float64) float64 { return ar * x }, Slice: scaleSlice(ar),
			D1: func(_, _ float64) float64 { return ar }, D2: zero[float64], Pull: scalePull(ar), affine: true},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return a * z },
			D1: func(_, _ complex128) complex128 { return a }, D2: zero[complex128], affine: true},
		Promote: imag(a) != 0,
		VJP:     scaleVJP(a)}
}

// shiftSpec is y = x + b, computed in complex128 for complex b.
func shiftSpec(b complex128) UnarySpec {
	br := real(b)
	return UnarySpec{
		Real:    Func1[float64]{F: func(x float64) float64 { return x + br }, Slice: shiftSlice(br), D1: one[float64], D2: zero[float64], Pull: passPull, affine: true},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return z + b }, D1: one[complex128], D2: zero[complex128], affine: true},
		Promote: imag(b) != 0,
		VJP:     passVJPSpec}
}

// powScalarSpec is y = x^p, y' = p x^(p-1), y" = p (p-1) x^(p-2), with the
// derivatives taken as exactly 0 where their factor p (or p-1) is 0, so that 0^(-1)
// never multiplies a zero (PyTorch does the same for p = 0). It is computed in
// complex128 for complex p.
func powScalarSpec(p complex128) UnarySpec {
	return UnarySpec{Real: powScalar(real(p), math.Pow), Complex: powScalar(p, cmplx.Pow), Promote: imag(p) != 0,
		Deriv: powScalarDeriv(p)}
}

// powScalar is y = x^p on one element type, with its pow (math's, or cmplx's
// principal branch).
func powScalar[T tensor.Element](p T, pow func(x, p T) T) Func1[T] {
	return Func1[T]{
		F: func(x T) T { return pow(x, p) },
		D1: func(x, _ T) T {
			if p == 0 {
				return 0
			}
			return p * pow(x, p-1)
		},
		D2: func(x, _ T) T {
			if p == 0 || p == 1 {
				return 0
			}
			return p * (p - 1) * pow(x, p-2)
		}}
}

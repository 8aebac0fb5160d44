package elementwise

import (
	"math"
	"math/cmplx"
)

// number is the element type of the derivative formulas written once for float64 and
// complex128 (those that need only arithmetic).
type number interface{ ~float64 | ~complex128 }

func negF[T number](x T) T               { return -x }
func minusOne[T number](_, _ T) T        { return -1 }
func one[T number](_, _ T) T             { return 1 }
func zero[T number](_, _ T) T            { return 0 }
func two[T number](_, _ T) T             { return 2 }
func outY[T number](_, y T) T            { return y }
func negY[T number](_, y T) T            { return -y }
func yPlus1[T number](_, y T) T          { return y + 1 }
func twoX[T number](x, _ T) T            { return 2 * x }
func squareF[T number](x T) T            { return x * x }
func recipF[T number](x T) T             { return 1 / x }
func invX[T number](x, _ T) T            { return 1 / x }
func negInvX2[T number](x, _ T) T        { return -1 / (x * x) }
func inv1pX[T number](x, _ T) T          { return 1 / (1 + x) }
func negInv1pX2[T number](x, _ T) T      { return -1 / ((1 + x) * (1 + x)) }
func sqrtD1[T number](_, y T) T          { return 0.5 / y }
func sqrtD2[T number](x, y T) T          { return -0.25 / (y * x) }
func rsqrtD1[T number](x, y T) T         { return -0.5 * y / x }
func rsqrtD2[T number](x, y T) T         { return 0.75 * y / (x * x) }
func recipD1[T number](_, y T) T         { return -y * y }
func recipD2[T number](_, y T) T         { return 2 * y * y * y }
func tanD1[T number](_, y T) T           { return 1 + y*y }
func tanD2[T number](_, y T) T           { return 2 * y * (1 + y*y) }
func tanhD1[T number](_, y T) T          { return 1 - y*y }
func tanhD2[T number](_, y T) T          { return -2 * y * (1 - y*y) }
func atanD1[T number](x, _ T) T          { return 1 / (1 + x*x) }
func atanD2[T number](x, _ T) T          { return -2 * x / ((1 + x*x) * (1 + x*x)) }
func atanhD1[T number](x, _ T) T         { return 1 / (1 - x*x) }
func atanhD2[T number](x, _ T) T         { return 2 * x / ((1 - x*x) * (1 - x*x)) }
func sigmoidD1[T number](_, y T) T       { return y * (1 - y) }
func sigmoidD2[T number](_, y T) T       { return y * (1 - y) * (1 - 2*y) }
func sinhD1(x, _ float64) float64        { return math.Cosh(x) }
func coshD1(x, _ float64) float64        { return math.Sinh(x) }
func sinD1(x, _ float64) float64         { return math.Cos(x) }
func cosD1(x, _ float64) float64         { return -math.Sin(x) }
func csinhD1(z, _ complex128) complex128 { return cmplx.Cosh(z) }
func ccoshD1(z, _ complex128) complex128 { return cmplx.Sinh(z) }
func csinD1(z, _ complex128) complex128  { return cmplx.Cos(z) }
func ccosD1(z, _ complex128) complex128  { return -cmplx.Sin(z) }

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

func negate(d func(x, y float64) float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return -d(x, y) }
}

func negateC(d func(z, w complex128) complex128) func(z, w complex128) complex128 {
	return func(z, w complex128) complex128 { return -d(z, w) }
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

// The table. Ops built from a row share it; rows are never modified.
var (
	negFn = &unaryFunc{name: "neg", f: negF[float64], d1: minusOne[float64], d2: zero[float64],
		fc: negF[complex128], d1c: minusOne[complex128], d2c: zero[complex128]}
	expFn = &unaryFunc{name: "exp", f: fastExp, slice: expSlice, d1: outY[float64], d2: outY[float64],
		fc: cmplx.Exp, d1c: outY[complex128], d2c: outY[complex128]}
	expm1Fn = &unaryFunc{name: "expm1", f: math.Expm1, d1: yPlus1[float64], d2: yPlus1[float64],
		fc: cexpm1, d1c: yPlus1[complex128], d2c: yPlus1[complex128]}
	logFn = &unaryFunc{name: "log", f: math.Log, d1: invX[float64], d2: negInvX2[float64],
		fc: cmplx.Log, d1c: invX[complex128], d2c: negInvX2[complex128]}
	log1pFn = &unaryFunc{name: "log1p", f: math.Log1p, d1: inv1pX[float64], d2: negInv1pX2[float64],
		fc: clog1p, d1c: inv1pX[complex128], d2c: negInv1pX2[complex128]}
	sqrtFn = &unaryFunc{name: "sqrt", f: math.Sqrt, d1: sqrtD1[float64], d2: sqrtD2[float64],
		fc: cmplx.Sqrt, d1c: sqrtD1[complex128], d2c: sqrtD2[complex128]}
	rsqrtFn = &unaryFunc{name: "rsqrt", f: func(x float64) float64 { return 1 / math.Sqrt(x) }, d1: rsqrtD1[float64], d2: rsqrtD2[float64],
		fc: func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }, d1c: rsqrtD1[complex128], d2c: rsqrtD2[complex128]}
	squareFn = &unaryFunc{name: "square", f: squareF[float64], d1: twoX[float64], d2: two[float64],
		fc: squareF[complex128], d1c: twoX[complex128], d2c: two[complex128]}
	reciprocalFn = &unaryFunc{name: "reciprocal", f: recipF[float64], d1: recipD1[float64], d2: recipD2[float64],
		fc: recipF[complex128], d1c: recipD1[complex128], d2c: recipD2[complex128]}
	absFn = &unaryFunc{name: "abs", f: absF, d1: sign, d2: zero[float64],
		g: absC, gd1: absCD1, gd2: absCD2}
	sinFn = &unaryFunc{name: "sin", f: math.Sin, d1: sinD1, d2: negY[float64],
		fc: cmplx.Sin, d1c: csinD1, d2c: negY[complex128]}
	cosFn = &unaryFunc{name: "cos", f: math.Cos, d1: cosD1, d2: negY[float64],
		fc: cmplx.Cos, d1c: ccosD1, d2c: negY[complex128]}
	tanFn = &unaryFunc{name: "tan", f: math.Tan, d1: tanD1[float64], d2: tanD2[float64],
		fc: cmplx.Tan, d1c: tanD1[complex128], d2c: tanD2[complex128]}
	sinhFn = &unaryFunc{name: "sinh", f: math.Sinh, d1: sinhD1, d2: outY[float64],
		fc: cmplx.Sinh, d1c: csinhD1, d2c: outY[complex128]}
	coshFn = &unaryFunc{name: "cosh", f: math.Cosh, d1: coshD1, d2: outY[float64],
		fc: cmplx.Cosh, d1c: ccoshD1, d2c: outY[complex128]}
	tanhFn = &unaryFunc{name: "tanh", f: fastTanh, slice: tanhSlice, d1: tanhD1[float64], d2: tanhD2[float64],
		fc: cmplx.Tanh, d1c: tanhD1[complex128], d2c: tanhD2[complex128]}
	asinFn = &unaryFunc{name: "asin", f: math.Asin, d1: asinD1, d2: asinD2,
		fc: cmplx.Asin, d1c: casinD1, d2c: casinD2}
	acosFn = &unaryFunc{name: "acos", f: math.Acos, d1: negate(asinD1), d2: negate(asinD2),
		fc: cmplx.Acos, d1c: negateC(casinD1), d2c: negateC(casinD2)}
	atanFn = &unaryFunc{name: "atan", f: math.Atan, d1: atanD1[float64], d2: atanD2[float64],
		fc: cmplx.Atan, d1c: atanD1[complex128], d2c: atanD2[complex128]}
	asinhFn = &unaryFunc{name: "asinh", f: math.Asinh, d1: asinhD1, d2: asinhD2,
		fc: cmplx.Asinh, d1c: casinhD1, d2c: casinhD2}
	acoshFn = &unaryFunc{name: "acosh", f: math.Acosh, d1: acoshD1, d2: acoshD2,
		fc: cmplx.Acosh, d1c: cacoshD1, d2c: cacoshD2}
	atanhFn = &unaryFunc{name: "atanh", f: math.Atanh, d1: atanhD1[float64], d2: atanhD2[float64],
		fc: cmplx.Atanh, d1c: atanhD1[complex128], d2c: atanhD2[complex128]}
	sigmoidFn = &unaryFunc{name: "sigmoid", f: sigmoid, slice: sigmoidSlice, d1: sigmoidD1[float64], d2: sigmoidD2[float64],
		fc: csigmoid, d1c: sigmoidD1[complex128], d2c: sigmoidD2[complex128]}
	logSigmoidFn = &unaryFunc{name: "logsigmoid", f: logSigmoid, slice: logSigmoidSlice, d1: logSigmoidD1, d2: logSigmoidD2}
	reluFn       = &unaryFunc{name: "relu", f: relu, d1: reluD1, d2: zero[float64]}
	siluFn       = &unaryFunc{name: "silu", f: silu, slice: siluSlice, d1: siluD1, d2: siluD2}
	erfFn        = &unaryFunc{name: "erf", f: math.Erf, d1: erfD1, d2: erfD2}
	conjFn       = &unaryFunc{name: "conj", f: func(x float64) float64 { return x }, d1: one[float64], d2: zero[float64], conj: true}
	realFn       = &unaryFunc{name: "real", f: func(x float64) float64 { return x }, d1: one[float64], d2: zero[float64],
		g: realC, gd1: realCD1, gd2: linearCD2}
	imagFn = &unaryFunc{name: "imag", noReal: true, g: imagC, gd1: imagCD1, gd2: linearCD2}
	abs2Fn = &unaryFunc{name: "abs2", f: squareF[float64], d1: twoX[float64], d2: two[float64],
		g: abs2C, gd1: abs2CD1, gd2: abs2CD2}
	angleFn = &unaryFunc{name: "angle", f: angleReal, d1: zero[float64], d2: zero[float64],
		g: angleC, gd1: angleCD1, gd2: angleCD2}
)

// softplusFunc returns the row of softplus with PyTorch's beta and threshold:
// y = log(1 + e^(beta x))/beta, and y = x where beta x > threshold.
func softplusFunc(beta, threshold float64) *unaryFunc {
	lin := func(x float64) bool { return x*beta > threshold }
	return &unaryFunc{name: "softplus",
		f: func(x float64) float64 {
			if lin(x) {
				return x
			}
			return softplus(beta*x) / beta
		},
		// f on blocks, with e^-|beta x| from the vector kernel.
		slice: func(dst, x []float64) {
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
		d1: func(x, _ float64) float64 {
			if lin(x) {
				return 1
			}
			return sigmoid(beta * x)
		},
		d2: func(x, _ float64) float64 {
			if lin(x) {
				return 0
			}
			s := sigmoid(beta * x)
			return beta * s * (1 - s)
		}}
}

// scaleFunc is y = a x.
func scaleFunc(a complex128) *unaryFunc {
	ar := real(a)
	return &unaryFunc{name: "scale",
		f:  func(x float64) float64 { return ar * x },
		d1: func(_, _ float64) float64 { return ar }, d2: zero[float64],
		fc:  func(z complex128) complex128 { return a * z },
		d1c: func(_, _ complex128) complex128 { return a }, d2c: zero[complex128]}
}

// shiftFunc is y = x + b.
func shiftFunc(b complex128) *unaryFunc {
	br := real(b)
	return &unaryFunc{name: "shift",
		f:  func(x float64) float64 { return x + br },
		d1: one[float64], d2: zero[float64],
		fc:  func(z complex128) complex128 { return z + b },
		d1c: one[complex128], d2c: zero[complex128]}
}

// powScalarFunc is y = x^p, y' = p x^(p-1), y" = p (p-1) x^(p-2), with the
// derivatives taken as exactly 0 where their factor p (or p-1) is 0, so that 0^(-1)
// never multiplies a zero (PyTorch does the same for p = 0).
func powScalarFunc(p complex128) *unaryFunc {
	pr := real(p)
	return &unaryFunc{name: "pow_scalar",
		f: func(x float64) float64 { return math.Pow(x, pr) },
		d1: func(x, _ float64) float64 {
			if pr == 0 {
				return 0
			}
			return pr * math.Pow(x, pr-1)
		},
		d2: func(x, _ float64) float64 {
			if pr == 0 || pr == 1 {
				return 0
			}
			return pr * (pr - 1) * math.Pow(x, pr-2)
		},
		fc: func(z complex128) complex128 { return cmplx.Pow(z, p) },
		d1c: func(z, _ complex128) complex128 {
			if p == 0 {
				return 0
			}
			return p * cmplx.Pow(z, p-1)
		},
		d2c: func(z, _ complex128) complex128 {
			if p == 0 || p == 1 {
				return 0
			}
			return p * (p - 1) * cmplx.Pow(z, p-2)
		}}
}

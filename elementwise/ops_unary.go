package elementwise

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The parameter-free unary ops. Each is an Op for tape.Apply(op, x) with a function
// of the same name that evaluates it without a tape. Every op has a pullback, forward
// tangents and an exact second-order rule; float64 ops keep the input's dtype, and an
// op applied to a dtype it does not support returns an error wrapping
// chainrules.ErrInvalidArgument that names the op.
var (
	// NegOp is the op of Neg: y = -x; xbar = -ybar; ydot = -xdot; no second-order term. float64 and complex128.
	NegOp = Unary("neg", negSpec)
	// ExpOp is the op of Exp: y = e^x; y' = y" = y. float64 and complex128 (holomorphic: xbar = conj(y) ybar).
	ExpOp = Unary("exp", expSpec)
	// Expm1Op is the op of Expm1: y = e^x - 1, accurate near 0; y' = y" = y + 1. float64 and complex128 (holomorphic).
	Expm1Op = Unary("expm1", expm1Spec)
	// LogOp is the op of Log: y = log x (principal branch for complex); y' = 1/x, y" = -1/x². float64 (NaN for x < 0, like PyTorch) and complex128 (holomorphic).
	LogOp = Unary("log", logSpec)
	// Log1pOp is the op of Log1p: y = log(1 + x), accurate near 0; y' = 1/(1+x), y" = -1/(1+x)². float64 and complex128 (holomorphic).
	Log1pOp = Unary("log1p", log1pSpec)
	// SqrtOp is the op of Sqrt: y = sqrt(x) (principal branch); y' = 1/(2y), y" = -1/(4 y x). float64 and complex128 (holomorphic).
	SqrtOp = Unary("sqrt", sqrtSpec)
	// RsqrtOp is the op of Rsqrt: y = 1/sqrt(x); y' = -y/(2x), y" = 3y/(4x²). float64 and complex128 (holomorphic).
	RsqrtOp = Unary("rsqrt", rsqrtSpec)
	// SquareOp is the op of Square: y = x²; y' = 2x, y" = 2. float64 and complex128 (holomorphic: xbar = 2 conj(x) ybar); for |x|² see Abs2.
	SquareOp = Unary("square", squareSpec)
	// ReciprocalOp is the op of Reciprocal: y = 1/x; y' = -y², y" = 2y³. float64 and complex128 (holomorphic).
	ReciprocalOp = Unary("reciprocal", reciprocalSpec)
	// AbsOp is the op of Abs: y = |x|. float64: y' = sign(x) with the subgradient abs'(0) = 0 (PyTorch's), y" = 0. complex128 (y is float64, not holomorphic): with z = a + ib, xbar = ybar z/|z| (0 at z = 0), ydot = Re(conj(z) zdot)/|z|, and the second-order term ybar (b² adot - ab bdot + i(a² bdot - ab adot))/|z|³.
	AbsOp = Unary("abs", absSpec)
	// SinOp is the op of Sin: y = sin x; y' = cos x, y" = -y. float64 and complex128 (holomorphic).
	SinOp = Unary("sin", sinSpec)
	// CosOp is the op of Cos: y = cos x; y' = -sin x, y" = -y. float64 and complex128 (holomorphic).
	CosOp = Unary("cos", cosSpec)
	// TanOp is the op of Tan: y = tan x; y' = 1 + y², y" = 2y(1 + y²). float64 and complex128 (holomorphic).
	TanOp = Unary("tan", tanSpec)
	// SinhOp is the op of Sinh: y = sinh x; y' = cosh x, y" = y. float64 and complex128 (holomorphic).
	SinhOp = Unary("sinh", sinhSpec)
	// CoshOp is the op of Cosh: y = cosh x; y' = sinh x, y" = y. float64 and complex128 (holomorphic).
	CoshOp = Unary("cosh", coshSpec)
	// TanhOp is the op of Tanh: y = tanh x; y' = 1 - y², y" = -2y(1 - y²). float64 and complex128 (holomorphic).
	TanhOp = Unary("tanh", tanhSpec)
	// AsinOp is the op of Asin: y = asin x; y' = (1 - x²)^(-1/2), y" = x (1 - x²)^(-3/2) (principal branches). float64 and complex128 (holomorphic off the cuts).
	AsinOp = Unary("asin", asinSpec)
	// AcosOp is the op of Acos: y = acos x; y' = -(1 - x²)^(-1/2), y" = -x (1 - x²)^(-3/2). float64 and complex128 (holomorphic off the cuts).
	AcosOp = Unary("acos", acosSpec)
	// AtanOp is the op of Atan: y = atan x; y' = 1/(1 + x²), y" = -2x/(1 + x²)². float64 and complex128 (holomorphic off the cuts).
	AtanOp = Unary("atan", atanSpec)
	// AsinhOp is the op of Asinh: y = asinh x; y' = (1 + x²)^(-1/2), y" = -x (1 + x²)^(-3/2). float64 and complex128 (holomorphic off the cuts).
	AsinhOp = Unary("asinh", asinhSpec)
	// AcoshOp is the op of Acosh: y = acosh x; y' = 1/(sqrt(x-1) sqrt(x+1)), y" = -x y'/(x² - 1). float64 and complex128 (holomorphic off the cut; the product form of y' is the derivative of the principal branch in the whole plane).
	AcoshOp = Unary("acosh", acoshSpec)
	// AtanhOp is the op of Atanh: y = atanh x; y' = 1/(1 - x²), y" = 2x/(1 - x²)². float64 and complex128 (holomorphic off the cuts).
	AtanhOp = Unary("atanh", atanhSpec)
	// SigmoidOp is the op of Sigmoid: y = 1/(1 + e^-x); y' = y(1 - y), y" = y(1 - y)(1 - 2y). float64 (no overflow for any x) and complex128 (holomorphic).
	SigmoidOp = Unary("sigmoid", sigmoidSpec)
	// LogSigmoidOp is the op of LogSigmoid: y = log(1/(1 + e^-x)) = min(x, 0) - log1p(e^-|x|); y' = sigmoid(-x), y" = -s(1 - s) with s = sigmoid(x). float64 only; complex input is an error (op name "logsigmoid").
	LogSigmoidOp = Unary("logsigmoid", logSigmoidSpec)
	// ReluOp is the op of Relu: y = max(x, 0) (NaN propagates); y' = 1 for x > 0 and 0 otherwise, so relu'(0) = 0 (PyTorch's subgradient); y" = 0. float64 only.
	ReluOp = Unary("relu", reluSpec)
	// SiluOp is the op of Silu: y = x sigmoid(x); with s = sigmoid(x), y' = s(1 + x(1 - s)), y" = s(1 - s)(2 + x(1 - 2s)). float64 only.
	SiluOp = Unary("silu", siluSpec)
	// ErfOp is the op of Erf: y = erf x; y' = 2/sqrt(pi) e^(-x²), y" = -2x y'. float64 only.
	ErfOp = Unary("erf", erfSpec)
	// ConjOp is the op of Conj: y = conj(x). complex128 (R-linear, not holomorphic): ydot = conj(xdot), xbar = conj(ybar), no second-order term. float64: the identity. It is also PyTorch's conj_physical.
	ConjOp = Unary("conj", conjSpec)
	// RealOp is the op of Real: y = Re x, a float64 tensor. complex128: ydot = Re xdot, xbar = ybar (a real cotangent as a complex one). float64: the identity. It is also PyTorch's double() cast (which drops the imaginary part of complex input, with a warning).
	RealOp = Unary("real", realSpec)
	// ImagOp is the op of Imag: y = Im x, a float64 tensor: ydot = Im xdot, xbar = i ybar. complex128 only: float64 input is an error, like PyTorch.
	ImagOp = Unary("imag", imagSpec)
	// Abs2Op is the op of Abs2: y = |x|², a float64 tensor, smooth everywhere. float64: y' = 2x, y" = 2. complex128 (z = a + ib): ydot = 2 Re(conj(z) zdot), xbar = 2 z ybar, second-order term 2 ybar zdot.
	Abs2Op = Unary("abs2", abs2Spec)
	// AngleOp is the op of Angle: y = arg x in (-pi, pi], a float64 tensor. complex128: ydot = Im(conj(z) zdot)/|z|², xbar = i z ybar/|z|² (0 at z = 0, PyTorch's choice), second-order term ybar (2ab adot + (b² - a²) bdot + i((b² - a²) adot - 2ab bdot))/|z|⁴. float64: 0 for x >= 0 and pi for x < 0, with zero derivatives.
	AngleOp = Unary("angle", angleSpec)
	// SoftplusOp is the op of Softplus: y = log(1 + e^x) (PyTorch's softplus with beta 1 and threshold 20: y = x where x > 20); y' = sigmoid(x), y" = s(1 - s). float64 only. SoftplusBetaOp takes other parameters.
	SoftplusOp = Unary("softplus", softplusSpec(1, 20))
)

// Neg returns the elementwise NegOp of x in a fresh tensor.
func Neg(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(NegOp, x) }

// Exp returns the elementwise ExpOp of x in a fresh tensor.
func Exp(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ExpOp, x) }

// Expm1 returns the elementwise Expm1Op of x in a fresh tensor.
func Expm1(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Expm1Op, x) }

// Log returns the elementwise LogOp of x in a fresh tensor.
func Log(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogOp, x) }

// Log1p returns the elementwise Log1pOp of x in a fresh tensor.
func Log1p(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log1pOp, x) }

// Sqrt returns the elementwise SqrtOp of x in a fresh tensor.
func Sqrt(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SqrtOp, x) }

// Rsqrt returns the elementwise RsqrtOp of x in a fresh tensor.
func Rsqrt(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RsqrtOp, x) }

// Square returns the elementwise SquareOp of x in a fresh tensor.
func Square(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SquareOp, x) }

// Reciprocal returns the elementwise ReciprocalOp of x in a fresh tensor.
func Reciprocal(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ReciprocalOp, x) }

// Abs returns the elementwise AbsOp of x in a fresh tensor.
func Abs(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AbsOp, x) }

// Sin returns the elementwise SinOp of x in a fresh tensor.
func Sin(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SinOp, x) }

// Cos returns the elementwise CosOp of x in a fresh tensor.
func Cos(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CosOp, x) }

// Tan returns the elementwise TanOp of x in a fresh tensor.
func Tan(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TanOp, x) }

// Sinh returns the elementwise SinhOp of x in a fresh tensor.
func Sinh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SinhOp, x) }

// Cosh returns the elementwise CoshOp of x in a fresh tensor.
func Cosh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CoshOp, x) }

// Tanh returns the elementwise TanhOp of x in a fresh tensor.
func Tanh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TanhOp, x) }

// Asin returns the elementwise AsinOp of x in a fresh tensor.
func Asin(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AsinOp, x) }

// Acos returns the elementwise AcosOp of x in a fresh tensor.
func Acos(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AcosOp, x) }

// Atan returns the elementwise AtanOp of x in a fresh tensor.
func Atan(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AtanOp, x) }

// Asinh returns the elementwise AsinhOp of x in a fresh tensor.
func Asinh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AsinhOp, x) }

// Acosh returns the elementwise AcoshOp of x in a fresh tensor.
func Acosh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AcoshOp, x) }

// Atanh returns the elementwise AtanhOp of x in a fresh tensor.
func Atanh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AtanhOp, x) }

// Sigmoid returns the elementwise SigmoidOp of x in a fresh tensor.
func Sigmoid(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SigmoidOp, x) }

// LogSigmoid returns the elementwise LogSigmoidOp of x in a fresh tensor.
func LogSigmoid(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogSigmoidOp, x) }

// Relu returns the elementwise ReluOp of x in a fresh tensor.
func Relu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ReluOp, x) }

// Silu returns the elementwise SiluOp of x in a fresh tensor.
func Silu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SiluOp, x) }

// Erf returns the elementwise ErfOp of x in a fresh tensor.
func Erf(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ErfOp, x) }

// Conj returns the elementwise ConjOp of x in a fresh tensor.
func Conj(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ConjOp, x) }

// Real returns the elementwise RealOp of x in a fresh tensor.
func Real(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RealOp, x) }

// Imag returns the elementwise ImagOp of x in a fresh tensor.
func Imag(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ImagOp, x) }

// Abs2 returns the elementwise Abs2Op of x in a fresh tensor.
func Abs2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Abs2Op, x) }

// Angle returns the elementwise AngleOp of x in a fresh tensor.
func Angle(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AngleOp, x) }

// Softplus returns the elementwise SoftplusOp of x in a fresh tensor.
func Softplus(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SoftplusOp, x) }

// SoftplusBetaOp returns the op of PyTorch's softplus with parameters beta and
// threshold:
//
//	y = log(1 + e^(beta x))/beta   where beta x <= threshold,
//	y = x                          where beta x > threshold,
//
// with y' = sigmoid(beta x) and y" = beta s(1 - s), s = sigmoid(beta x), in the first
// region and y' = 1, y" = 0 in the second (the jump of y' at the threshold is
// PyTorch's). beta must be nonzero (Apply reports ErrInvalidArgument otherwise).
// float64 only; the op name is "softplus".
func SoftplusBetaOp(beta, threshold float64) cr.Op[*tensor.Dense] {
	if beta == 0 || beta != beta {
		return cr.FailOp[*tensor.Dense]("softplus", cr.Errorf(cr.ErrInvalidArgument, "softplus: beta must be nonzero, got %v", beta))
	}
	return Unary("softplus", softplusSpec(beta, threshold))
}

// SoftplusBeta returns SoftplusBetaOp(beta, threshold) of x in a fresh tensor.
func SoftplusBeta(x *tensor.Dense, beta, threshold float64) (*tensor.Dense, error) {
	return cr.Eval(SoftplusBetaOp(beta, threshold), x)
}

// ScaleOp returns the op y = a x, with y' = a and no second-order term (pullback
// xbar = conj(a) ybar), for a an int, a real or a complex number (tensor.Number): a
// real a keeps a real x real. A float64 x with a complex a (imag(a) != 0) gives a complex128
// y, and x then receives the real part of its cotangent. The op name is "scale".
func ScaleOp[S tensor.Number](a S) cr.Op[*tensor.Dense] {
	return Unary("scale", scaleSpec(tensor.Complex128Of(a)))
}

// Scale returns a x in a fresh tensor.
func Scale[S tensor.Number](x *tensor.Dense, a S) (*tensor.Dense, error) {
	return cr.Eval(ScaleOp(a), x)
}

// ScaleFloat64Op is ScaleOp for a real factor, ScaleOp(complex(a, 0)), so that a
// float64 variable needs no conversion: ScaleFloat64Op(lambda / 2). A float64 x
// stays float64.
func ScaleFloat64Op(a float64) cr.Op[*tensor.Dense] { return ScaleOp(complex(a, 0)) }

// ScaleFloat64 returns a x in a fresh tensor, for a real a.
func ScaleFloat64(x *tensor.Dense, a float64) (*tensor.Dense, error) {
	return cr.Eval(ScaleFloat64Op(a), x)
}

// ShiftOp returns the op y = x + b, with y' = 1: xbar = ybar, ydot = xdot, for b a
// tensor.Number. A float64 x with a complex b is promoted like ScaleOp. The op name is "shift".
func ShiftOp[S tensor.Number](b S) cr.Op[*tensor.Dense] {
	return Unary("shift", shiftSpec(tensor.Complex128Of(b)))
}

// Shift returns x + b in a fresh tensor.
func Shift[S tensor.Number](x *tensor.Dense, b S) (*tensor.Dense, error) {
	return cr.Eval(ShiftOp(b), x)
}

// PowScalarOp returns the op y = x^p for a constant p (a tensor.Number): y' = p x^(p-1) and
// y" = p(p-1) x^(p-2), each taken as exactly 0 when its leading factor is 0 (so
// p = 0 has zero derivatives even at x = 0, as in PyTorch). For float64 x and real p,
// y = math.Pow(x, p) (NaN for x < 0 and non-integer p, like PyTorch); complex128 x
// uses the principal branch, and a float64 x with a complex p is promoted like ScaleOp.
// The op name is "pow_scalar".
func PowScalarOp[S tensor.Number](p S) cr.Op[*tensor.Dense] {
	return Unary("pow_scalar", powScalarSpec(tensor.Complex128Of(p)))
}

// PowScalar returns x^p in a fresh tensor.
func PowScalar[S tensor.Number](x *tensor.Dense, p S) (*tensor.Dense, error) {
	return cr.Eval(PowScalarOp(p), x)
}

package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// More exponentials and logarithms, angle conversions and sinc.
var (
	// Exp2Op is the op of Exp2: y = 2^x; y' = y ln 2, y" = y ln² 2. float64 and
	// complex128 (holomorphic, 2^z = e^(z ln 2)).
	Exp2Op = Unary("exp2", UnarySpec{
		Real:    Func1[float64]{F: math.Exp2, D1: scaledY[float64](math.Ln2), D2: scaledY[float64](math.Ln2 * math.Ln2)},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return cmplx.Exp(z * math.Ln2) }, D1: scaledY[complex128](math.Ln2), D2: scaledY[complex128](math.Ln2 * math.Ln2)}})
	// Log2Op is the op of Log2: y = log x / ln 2; y' = 1/(x ln 2), y" = -1/(x² ln 2).
	// float64 (NaN for x < 0) and complex128 (principal branch, holomorphic).
	Log2Op = Unary("log2", UnarySpec{
		Real:    Func1[float64]{F: math.Log2, D1: scaledInvX[float64](1 / math.Ln2), D2: scaledNegInvX2[float64](1 / math.Ln2)},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return cmplx.Log(z) / math.Ln2 }, D1: scaledInvX[complex128](1 / math.Ln2), D2: scaledNegInvX2[complex128](1 / math.Ln2)}})
	// Log10Op is the op of Log10: y = log x / ln 10; y' = 1/(x ln 10),
	// y" = -1/(x² ln 10). float64 and complex128 (principal branch, holomorphic).
	Log10Op = Unary("log10", UnarySpec{
		Real:    Func1[float64]{F: math.Log10, D1: scaledInvX[float64](1 / math.Ln10), D2: scaledNegInvX2[float64](1 / math.Ln10)},
		Complex: Func1[complex128]{F: cmplx.Log10, D1: scaledInvX[complex128](1 / math.Ln10), D2: scaledNegInvX2[complex128](1 / math.Ln10)}})
	// LogitOp is the op of Logit: y = log(x/(1 - x)); y' = 1/(x(1 - x)),
	// y" = (2x - 1)/(x(1 - x))²; y and its derivatives are NaN outside [0, 1], as in
	// PyTorch. float64 only. LogitEpsOp clamps x first.
	LogitOp = LogitEpsOp(-1)
	// Deg2radOp is the op of Deg2rad: y = x pi/180; y' = pi/180. float64 only, like
	// PyTorch.
	Deg2radOp = Unary("deg2rad", linearSpec(math.Pi/180))
	// Rad2degOp is the op of Rad2deg: y = x 180/pi; y' = 180/pi. float64 only.
	Rad2degOp = Unary("rad2deg", linearSpec(180/math.Pi))
	// SincOp is the op of Sinc: the normalised sinc, y = sin(pi x)/(pi x) and 1 at
	// x = 0. With u = pi x, y' = pi (u cos u - sin u)/u² and
	// y" = pi² (2 sin u - 2u cos u - u² sin u)/u³, evaluated by their Taylor series for
	// |u| < 0.1 (so y'(0) = 0 and y"(0) = -pi²/3, where PyTorch takes 0 for y'(0)
	// too). float64 and complex128 (holomorphic).
	SincOp = Unary("sinc", UnarySpec{
		Real:    Func1[float64]{F: sinc, D1: sincD1, D2: sincD2},
		Complex: Func1[complex128]{F: csinc, D1: csincD1, D2: csincD2}})

	// LogaddexpOp is y = log(e^a + e^b), computed without overflow. With
	// s = 1/(1 + e^(b - a)): f_a = s, f_b = 1 - s = 1/(1 + e^(a - b)),
	// f_aa = f_bb = s(1 - s) = f_a f_b, f_ab = -f_a f_b. float64 and complex128
	// (holomorphic; the branch of the logarithm is that of a + log1p(e^(b - a)) with
	// Re a >= Re b).
	LogaddexpOp = Binary("logaddexp", BinarySpec{
		Real:    Func2[float64]{F: logaddexp, D1: logaddexpD1, D2: logaddexpD2},
		Complex: Func2[complex128]{F: clogaddexp, D1: clogaddexpD1, D2: clogaddexpD2}})
	// FloatPowerOp is y = a^b computed in double precision, PyTorch's float_power: on
	// float64 and complex128 it is PowOp under another name (PowOp gives the
	// derivatives and their masks).
	FloatPowerOp = Binary("float_power", powSpec)
)

// Exp2 returns the elementwise Exp2Op of x in a fresh tensor.
func Exp2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Exp2Op, x) }

// Log2 returns the elementwise Log2Op of x in a fresh tensor.
func Log2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log2Op, x) }

// Log10 returns the elementwise Log10Op of x in a fresh tensor.
func Log10(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log10Op, x) }

// Logit returns the elementwise LogitOp of x in a fresh tensor.
func Logit(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogitOp, x) }

// Deg2rad returns the elementwise Deg2radOp of x in a fresh tensor.
func Deg2rad(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Deg2radOp, x) }

// Rad2deg returns the elementwise Rad2degOp of x in a fresh tensor.
func Rad2deg(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Rad2degOp, x) }

// Sinc returns the elementwise SincOp of x in a fresh tensor.
func Sinc(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SincOp, x) }

// Logaddexp returns log(e^a + e^b), broadcast, in a fresh tensor.
func Logaddexp(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogaddexpOp, a, b) }

// FloatPower returns a^b, broadcast, in a fresh tensor.
func FloatPower(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FloatPowerOp, a, b) }

// LogitEpsOp returns the op of PyTorch's logit(x, eps): x is first clamped to
// [eps, 1 - eps], y = log(x/(1 - x)), and y' = 1/(x(1 - x)), y" = (2x - 1)/(x(1 - x))²
// inside [eps, 1 - eps] and 0 outside (PyTorch's). A negative eps means none (LogitOp).
// float64 only; the op name is "logit".
func LogitEpsOp(eps float64) cr.Op[*tensor.Dense] {
	clamp := eps >= 0
	// outside returns the value of both derivatives where x was clamped (0) or is
	// outside [0, 1] (NaN), and whether x is there.
	outside := func(x float64) (float64, bool) {
		switch {
		case clamp && (x < eps || x > 1-eps):
			return 0, true
		case x < 0 || x > 1:
			return math.NaN(), true
		}
		return 0, false
	}
	return Unary("logit", UnarySpec{Deriv: logitDeriv(eps), Real: Func1[float64]{
		F: func(x float64) float64 {
			if clamp {
				x = math.Min(math.Max(x, eps), 1-eps)
			}
			return math.Log(x / (1 - x))
		},
		D1: func(x, _ float64) float64 {
			if v, ok := outside(x); ok {
				return v
			}
			return 1 / (x * (1 - x))
		},
		D2: func(x, _ float64) float64 {
			if v, ok := outside(x); ok {
				return v
			}
			d := x * (1 - x)
			return (2*x - 1) / (d * d)
		}}})
}

// LogitEps returns LogitEpsOp(eps) of x in a fresh tensor.
func LogitEps(x *tensor.Dense, eps float64) (*tensor.Dense, error) {
	return cr.Eval(LogitEpsOp(eps), x)
}

func scaledY[T tensor.Element](c T) func(x, y T) T {
	return func(_, y T) T { return c * y }
}

func scaledInvX[T tensor.Element](c T) func(x, y T) T {
	return func(x, _ T) T { return c / x }
}

func scaledNegInvX2[T tensor.Element](c T) func(x, y T) T {
	return func(x, _ T) T { return -c / (x * x) }
}

// linearSpec is y = c x on float64.
func linearSpec(c float64) UnarySpec {
	return UnarySpec{Real: Func1[float64]{F: func(x float64) float64 { return c * x },
		D1: func(_, _ float64) float64 { return c }, D2: zero[float64]}, VJP: scaleVJP(complex(c, 0))}
}

// sincSmall is the bound on |u| = |pi x| below which sinc's derivatives come from
// their Taylor series (the closed forms cancel there).
const sincSmall = 0.1

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	u := math.Pi * x
	return math.Sin(u) / u
}

func csinc(z complex128) complex128 {
	if z == 0 {
		return 1
	}
	u := math.Pi * z
	return cmplx.Sin(u) / u
}

// sincSeriesD1 is d/du sin(u)/u = -u/3 + u³/30 - u⁵/840 + u⁷/45360 - ...
func sincSeriesD1[T tensor.Element](u T) T {
	u2 := u * u
	return u * (-1.0/3 + u2*(1.0/30+u2*(-1.0/840+u2/45360)))
}

// sincSeriesD2 is d²/du² sin(u)/u = -1/3 + u²/10 - u⁴/168 + u⁶/6480 - ...
func sincSeriesD2[T tensor.Element](u T) T {
	u2 := u * u
	return -1.0/3 + u2*(1.0/10+u2*(-1.0/168+u2/6480))
}

func sincD1(x, _ float64) float64 {
	u := math.Pi * x
	if math.Abs(u) < sincSmall {
		return math.Pi * sincSeriesD1(u)
	}
	s, c := math.Sincos(u)
	return math.Pi * (u*c - s) / (u * u)
}

func sincD2(x, _ float64) float64 {
	u := math.Pi * x
	if math.Abs(u) < sincSmall {
		return math.Pi * math.Pi * sincSeriesD2(u)
	}
	s, c := math.Sincos(u)
	return math.Pi * math.Pi * (2*s - 2*u*c - u*u*s) / (u * u * u)
}

func csincD1(z, _ complex128) complex128 {
	u := math.Pi * z
	if cmplx.Abs(u) < sincSmall {
		return math.Pi * sincSeriesD1(u)
	}
	return math.Pi * (u*cmplx.Cos(u) - cmplx.Sin(u)) / (u * u)
}

func csincD2(z, _ complex128) complex128 {
	u := math.Pi * z
	if cmplx.Abs(u) < sincSmall {
		return math.Pi * math.Pi * sincSeriesD2(u)
	}
	s, c := cmplx.Sin(u), cmplx.Cos(u)
	return math.Pi * math.Pi * (2*s - 2*u*c - u*u*s) / (u * u * u)
}

// logaddexp is max(a, b) + log1p(e^-|a - b|), and a where a = b = ±Inf.
func logaddexp(a, b float64) float64 {
	if a == b && math.IsInf(a, 0) {
		return a
	}
	return math.Max(a, b) + math.Log1p(math.Exp(-math.Abs(a-b)))
}

func logaddexpD1(a, b, _ float64) (float64, float64) {
	return 1 / (1 + math.Exp(b-a)), 1 / (1 + math.Exp(a-b))
}

// logaddexpD2 is (f_a f_b, -f_a f_b, f_a f_b).
func logaddexpD2(a, b, y float64) (float64, float64, float64) {
	fa, fb := logaddexpD1(a, b, y)
	return fa * fb, -fa * fb, fa * fb
}

func clogaddexpD2(a, b, y complex128) (complex128, complex128, complex128) {
	fa, fb := clogaddexpD1(a, b, y)
	return fa * fb, -fa * fb, fa * fb
}

// clogaddexp is a + log1p(e^(b - a)) for Re a >= Re b, and b + log1p(e^(a - b))
// otherwise.
func clogaddexp(a, b complex128) complex128 {
	if real(a) < real(b) {
		a, b = b, a
	}
	if cmplx.IsInf(a) && a == b {
		return a
	}
	return a + clog1p(cmplx.Exp(b-a))
}

func clogaddexpD1(a, b, _ complex128) (complex128, complex128) {
	return 1 / (1 + cmplx.Exp(b-a)), 1 / (1 + cmplx.Exp(a-b))
}

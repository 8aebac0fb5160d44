package elementwise

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Special functions, float64 only (like most of PyTorch's), each with the closed
// forms of its first two derivatives. psi^(n) below is the polygamma function, the
// n-th derivative of the digamma function psi.
var (
	// LgammaOp is the op of Lgamma: y = log|Gamma(x)|; y' = psi(x), y" = psi^(1)(x).
	// +Inf at the poles x = 0, -1, -2, ...
	LgammaOp = Unary("lgamma", UnarySpec{Real: Func1[float64]{F: lgamma, D1: polygammaD(0), D2: polygammaD(1)}})
	// DigammaOp is the op of Digamma: y = psi(x) = Gamma'(x)/Gamma(x); y' = psi^(1)(x),
	// y" = psi^(2)(x). At the poles: -Inf at +0 and NaN at the negative integers
	// (PyTorch's values).
	DigammaOp = PolygammaOp(0)
	// ErfcOp is the op of Erfc: y = 1 - erf x, accurate for large x;
	// y' = -2/sqrt(pi) e^(-x²), y" = 4x/sqrt(pi) e^(-x²).
	ErfcOp = Unary("erfc", UnarySpec{Real: Func1[float64]{F: math.Erfc, D1: erfcD1, D2: erfcD2}})
	// ErfinvOp is the op of Erfinv: y = erf^-1(x) on [-1, 1] (±Inf at ±1, NaN
	// outside); y' = sqrt(pi)/2 e^(y²), y" = 2y y'².
	ErfinvOp = Unary("erfinv", UnarySpec{Real: Func1[float64]{F: math.Erfinv, D1: erfinvD1, D2: erfinvD2}})
	// ErfcxOp is the op of Erfcx: the scaled complementary error function
	// y = e^(x²) erfc(x), without overflow for large x; y' = 2xy - 2/sqrt(pi),
	// y" = 2y + 2x y' (PyTorch's special_erfcx).
	ErfcxOp = Unary("erfcx", UnarySpec{Real: Func1[float64]{F: erfcx, D1: erfcxD1, D2: erfcxD2}})
	// NdtrOp is the op of Ndtr: the standard normal CDF y = Phi(x) =
	// erfc(-x/sqrt 2)/2; y' = phi(x) = e^(-x²/2)/sqrt(2 pi), y" = -x phi(x).
	NdtrOp = Unary("ndtr", UnarySpec{Real: Func1[float64]{F: ndtr, D1: ndtrD1, D2: ndtrD2}})
	// NdtriOp is the op of Ndtri: the standard normal quantile y = Phi^-1(p) on
	// [0, 1] (±Inf at the ends, NaN outside); y' = 1/phi(y) = sqrt(2 pi) e^(y²/2),
	// y" = y y'².
	NdtriOp = Unary("ndtri", UnarySpec{Real: Func1[float64]{F: ndtri, D1: ndtriD1, D2: ndtriD2}})
	// LogNdtrOp is the op of LogNdtr: y = log Phi(x), accurate in both tails;
	// y' = phi(x)/Phi(x) (through erfcx for x < -1), y" = -y' (x + y').
	LogNdtrOp = Unary("log_ndtr", UnarySpec{Real: Func1[float64]{F: logNdtr, D1: func(x, _ float64) float64 { return logNdtrD1(x) },
		D2: func(x, _ float64) float64 { d := logNdtrD1(x); return -d * (x + d) }}})
	// I0Op is the op of I0: the modified Bessel function of the first kind of order
	// 0; y' = I1(x), y" = I0(x) - I1(x)/x (1/2 at 0).
	I0Op = Unary("i0", UnarySpec{Real: Func1[float64]{F: besselI0, D1: besselI0D1, D2: besselI0D2}})
	// I1Op is the op of I1: the modified Bessel function of the first kind of order
	// 1; y' = I0(x) - I1(x)/x (1/2 at 0), y" = I1(x) - (I0(x) - 2 I1(x)/x)/x (from
	// its power series for |x| <= 30, where the closed form cancels).
	I1Op = Unary("i1", UnarySpec{Real: Func1[float64]{F: besselI1, D1: besselI1D1, D2: besselI1D2}})
	// I0eOp is the op of I0e: y = e^(-|x|) I0(x), without overflow; with s = sign(x)
	// (0 at 0, PyTorch's choice at the kink), y' = i1e(x) - s y and
	// y" = e^(-|x|) (I0 - 2s I1 + I0").
	I0eOp = Unary("i0e", UnarySpec{Real: Func1[float64]{F: besselI0e, D1: besselI0eD1, D2: besselI0eD2}})
	// I1eOp is the op of I1e: y = e^(-|x|) I1(x); y' = e^(-|x|) (I1' - s I1) (1/2 at
	// 0), y" = e^(-|x|) (I1 - 2s I1' + I1").
	I1eOp = Unary("i1e", UnarySpec{Real: Func1[float64]{F: besselI1e, D1: besselI1eD1, D2: besselI1eD2}})
	// EntrOp is the op of Entr: y = -x log x for x > 0, 0 at 0 and -Inf for x < 0;
	// y' = -(1 + log x), y" = -1/x (PyTorch's special_entr).
	EntrOp = Unary("entr", UnarySpec{Real: Func1[float64]{F: entr, D1: func(x, _ float64) float64 { return -(1 + math.Log(x)) },
		D2: func(x, _ float64) float64 { return -1 / x }}})
	// Xlog1pyOp is y = a log1p(b), with y = 0 where a = 0 and b is not NaN: f_a =
	// log1p(b) (0 where a = 0 and b <= -1, PyTorch's mask), f_b = a/(1 + b),
	// f_ab = 1/(1 + b), f_bb = -a/(1 + b)². float64 only.
	Xlog1pyOp = Binary("xlog1py", BinarySpec{Real: Func2[float64]{F: xlog1py, D1: xlog1pyD1, D2: xlog1pyD2}})
)

// Lgamma returns the elementwise LgammaOp of x in a fresh tensor.
func Lgamma(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LgammaOp, x) }

// Digamma returns the elementwise DigammaOp of x in a fresh tensor.
func Digamma(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(DigammaOp, x) }

// Erfc returns the elementwise ErfcOp of x in a fresh tensor.
func Erfc(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ErfcOp, x) }

// Erfinv returns the elementwise ErfinvOp of x in a fresh tensor.
func Erfinv(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ErfinvOp, x) }

// Erfcx returns the elementwise ErfcxOp of x in a fresh tensor.
func Erfcx(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ErfcxOp, x) }

// Ndtr returns the elementwise NdtrOp of x in a fresh tensor.
func Ndtr(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(NdtrOp, x) }

// Ndtri returns the elementwise NdtriOp of x in a fresh tensor.
func Ndtri(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(NdtriOp, x) }

// LogNdtr returns the elementwise LogNdtrOp of x in a fresh tensor.
func LogNdtr(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogNdtrOp, x) }

// I0 returns the elementwise I0Op of x in a fresh tensor.
func I0(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(I0Op, x) }

// I1 returns the elementwise I1Op of x in a fresh tensor.
func I1(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(I1Op, x) }

// I0e returns the elementwise I0eOp of x in a fresh tensor.
func I0e(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(I0eOp, x) }

// I1e returns the elementwise I1eOp of x in a fresh tensor.
func I1e(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(I1eOp, x) }

// Entr returns the elementwise EntrOp of x in a fresh tensor.
func Entr(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(EntrOp, x) }

// Xlog1py returns a log1p(b), broadcast, in a fresh tensor.
func Xlog1py(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Xlog1pyOp, a, b) }

// PolygammaOp returns the op of PyTorch's polygamma(n, x): y = psi^(n)(x), the n-th
// derivative of the digamma function (n = 0 is digamma); y' = psi^(n+1)(x),
// y" = psi^(n+2)(x). Positive x below 20 is shifted by the recurrence
// psi^(n)(x) = psi^(n)(x+1) - (-1)^n n!/x^(n+1) to the asymptotic series, negative
// x goes through the reflection formula, and the poles x = 0, -1, ... give
// (-1)^(n+1) Inf (n >= 1). n must be in [0, 168], so that the (n+2)! of the second
// derivative is finite (Apply reports ErrInvalidArgument otherwise). The op name is
// "polygamma" ("digamma" for n = 0).
func PolygammaOp(n int) cr.Op[*tensor.Dense] {
	name := "polygamma"
	if n == 0 {
		name = "digamma"
	}
	if n < 0 || n > 168 {
		return cr.FailOp[*tensor.Dense](name, cr.Errorf(cr.ErrInvalidArgument, "polygamma: n must be in [0, 168], got %d", n))
	}
	return Unary(name, UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 { return polygamma(n, x) }, D1: polygammaD(n + 1), D2: polygammaD(n + 2)},
		Deriv: polygammaDeriv(n)})
}

// Polygamma returns PolygammaOp(n) of x in a fresh tensor.
func Polygamma(x *tensor.Dense, n int) (*tensor.Dense, error) { return cr.Eval(PolygammaOp(n), x) }

// MvlgammaOp returns the op of PyTorch's mvlgamma(x, p), the multivariate log-gamma
// function log Gamma_p(x) = p(p-1)/4 log pi + sum_{j<p} lgamma(x - j/2);
// y' = sum_{j<p} psi(x - j/2), y" = sum_{j<p} psi^(1)(x - j/2). Elements with
// x <= (p-1)/2, where PyTorch raises an error, give NaN. p must be >= 1 (Apply
// reports ErrInvalidArgument otherwise). The op name is "mvlgamma".
func MvlgammaOp(p int) cr.Op[*tensor.Dense] {
	if p < 1 {
		return cr.FailOp[*tensor.Dense]("mvlgamma", cr.Errorf(cr.ErrInvalidArgument, "mvlgamma: p must be >= 1, got %d", p))
	}
	return Unary("mvlgamma", UnarySpec{Real: Func1[float64]{
		F:  func(x float64) float64 { return mvlgamma(p, x) },
		D1: func(x, _ float64) float64 { return mvpolygamma(0, p, x) },
		D2: func(x, _ float64) float64 { return mvpolygamma(1, p, x) }},
		Deriv: mvpolygammaDeriv(0, p)})
}

// Mvlgamma returns MvlgammaOp(p) of x in a fresh tensor.
func Mvlgamma(x *tensor.Dense, p int) (*tensor.Dense, error) { return cr.Eval(MvlgammaOp(p), x) }

func polygammaD(n int) func(x, y float64) float64 {
	return func(x, _ float64) float64 { return polygamma(n, x) }
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

func erfcD1(x, _ float64) float64 { return -twoOverSqrtPi * math.Exp(-x*x) }
func erfcD2(x, _ float64) float64 { return 2 * x * twoOverSqrtPi * math.Exp(-x*x) }

func erfinvD1(_, y float64) float64 { return math.SqrtPi / 2 * math.Exp(y*y) }
func erfinvD2(x, y float64) float64 { d := erfinvD1(x, y); return 2 * y * d * d }

func erfcxD1(x, y float64) float64 { return 2*x*y - twoOverSqrtPi }
func erfcxD2(x, y float64) float64 { return 2*y + 2*x*erfcxD1(x, y) }

func ndtr(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }

func ndtrD1(x, _ float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
func ndtrD2(x, y float64) float64 { return -x * ndtrD1(x, y) }

func ndtriD1(_, y float64) float64 { return math.Sqrt(2*math.Pi) * math.Exp(y*y/2) }
func ndtriD2(x, y float64) float64 { d := ndtriD1(x, y); return y * d * d }

// The Bessel ops scale besselI's values by e^|x| where they are unscaled.

func besselI0(x float64) float64 { s0, _, _, _ := besselI(x); return s0 * math.Exp(math.Abs(x)) }
func besselI1(x float64) float64 { _, s1, _, _ := besselI(x); return s1 * math.Exp(math.Abs(x)) }

func besselI0D1(x, _ float64) float64 { return besselI1(x) }

func besselI0D2(x, _ float64) float64 {
	s0, _, s1x, _ := besselI(x)
	return (s0 - s1x) * math.Exp(math.Abs(x))
}

func besselI1D1(x, y float64) float64 { return besselI0D2(x, y) }

func besselI1D2(x, _ float64) float64 {
	_, _, _, s1pp := besselI(x)
	return s1pp * math.Exp(math.Abs(x))
}

func besselI0e(x float64) float64 { s0, _, _, _ := besselI(x); return s0 }
func besselI1e(x float64) float64 { _, s1, _, _ := besselI(x); return s1 }

func besselI0eD1(x, _ float64) float64 {
	s0, s1, _, _ := besselI(x)
	return s1 - sign(x, 0)*s0
}

func besselI0eD2(x, _ float64) float64 {
	s0, s1, s1x, _ := besselI(x)
	return 2*s0 - s1x - 2*sign(x, 0)*s1
}

func besselI1eD1(x, _ float64) float64 {
	s0, s1, s1x, _ := besselI(x)
	return s0 - s1x - sign(x, 0)*s1
}

func besselI1eD2(x, _ float64) float64 {
	s0, s1, s1x, s1pp := besselI(x)
	return s1 - 2*sign(x, 0)*(s0-s1x) + s1pp
}

func entr(x float64) float64 {
	switch {
	case x > 0:
		return -x * math.Log(x)
	case x == 0:
		return 0
	case x < 0:
		return math.Inf(-1)
	}
	return x
}

// xlog1py(a, b) = a log1p(b), and 0 where a = 0 unless b is NaN; its partials are
// those of xlog with u = 1 + b (b > -1 exactly where 1 + b > 0).
func xlog1py(a, b float64) float64                          { return xlog(math.Log1p, a, b) }
func xlog1pyD1(a, b, _ float64) (float64, float64)          { return xlogD1(math.Log1p, a, b, 1+b) }
func xlog1pyD2(a, b, _ float64) (float64, float64, float64) { return xlogD2(a, 1+b) }

package elementwise

import (
	"math"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

const invSqrt2Pi = 1 / (math.Sqrt2 * math.SqrtPi)

// Special functions, float64 only (like most of PyTorch's), each with the closed
// forms of its first two derivatives. psi^(n) below is the polygamma function, the
// n-th derivative of the digamma function psi.
var (
	// ErfOp is the op of Erf: y = erf x; y' = 2/sqrt(pi) e^(-x²), y" = -2x y'. float64 only.
	ErfOp cr.Op[*tensor.Dense]
	// LgammaOp is the op of Lgamma: y = log|Gamma(x)|; y' = psi(x), y" = psi^(1)(x).
	// +Inf at the poles x = 0, -1, -2, ...
	LgammaOp cr.Op[*tensor.Dense]
	// DigammaOp is the op of Digamma: y = psi(x) = Gamma'(x)/Gamma(x); y' = psi^(1)(x),
	// y" = psi^(2)(x). At the poles: -Inf at +0 and NaN at the negative integers
	// (PyTorch's values).
	DigammaOp cr.Op[*tensor.Dense]
	// ErfcOp is the op of Erfc: y = 1 - erf x, accurate for large x;
	// y' = -2/sqrt(pi) e^(-x²), y" = 4x/sqrt(pi) e^(-x²).
	ErfcOp cr.Op[*tensor.Dense]
	// ErfinvOp is the op of Erfinv: y = erf^-1(x) on [-1, 1] (±Inf at ±1, NaN
	// outside); y' = sqrt(pi)/2 e^(y²), y" = 2y y'².
	ErfinvOp cr.Op[*tensor.Dense]
	// ErfcxOp is the op of Erfcx: the scaled complementary error function
	// y = e^(x²) erfc(x), without overflow for large x; y' = 2xy - 2/sqrt(pi),
	// y" = 2y + 2x y' (PyTorch's special_erfcx).
	ErfcxOp cr.Op[*tensor.Dense]
	// NdtrOp is the op of Ndtr: the standard normal CDF y = Phi(x) =
	// erfc(-x/sqrt 2)/2; y' = phi(x) = e^(-x²/2)/sqrt(2 pi), y" = -x phi(x).
	NdtrOp cr.Op[*tensor.Dense]
	// NdtriOp is the op of Ndtri: the standard normal quantile y = Phi^-1(p) on
	// [0, 1] (±Inf at the ends, NaN outside); y' = 1/phi(y) = sqrt(2 pi) e^(y²/2),
	// y" = y y'².
	NdtriOp cr.Op[*tensor.Dense]
	// LogNdtrOp is the op of LogNdtr: y = log Phi(x), accurate in both tails;
	// y' = phi(x)/Phi(x) (through erfcx for x < -1), y" = -y' (x + y').
	LogNdtrOp cr.Op[*tensor.Dense]
	// I0Op is the op of I0: the modified Bessel function of the first kind of order
	// 0; y' = I1(x), y" = I0(x) - I1(x)/x (1/2 at 0).
	I0Op cr.Op[*tensor.Dense]
	// I1Op is the op of I1: the modified Bessel function of the first kind of order
	// 1; y' = I0(x) - I1(x)/x (1/2 at 0), y" = I1(x) - (I0(x) - 2 I1(x)/x)/x (from
	// its power series for |x| <= 30, where the closed form cancels).
	I1Op cr.Op[*tensor.Dense]
	// I0eOp is the op of I0e: y = e^(-|x|) I0(x), without overflow; with s = sign(x)
	// (0 at 0, PyTorch's choice at the kink), y' = i1e(x) - s y and
	// y" = e^(-|x|) (I0 - 2s I1 + I0").
	I0eOp cr.Op[*tensor.Dense]
	// I1eOp is the op of I1e: y = e^(-|x|) I1(x); y' = e^(-|x|) (I1' - s I1) (1/2 at
	// 0), y" = e^(-|x|) (I1 - 2s I1' + I1").
	I1eOp cr.Op[*tensor.Dense]
	// EntrOp is the op of Entr: y = -x log x for x > 0, 0 at 0 and -Inf for x < 0;
	// y' = -(1 + log x), y" = -1/x (PyTorch's special_entr).
	EntrOp cr.Op[*tensor.Dense]
)

// Erf returns the elementwise ErfOp of x in a fresh tensor.
func Erf(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ErfOp, x) }

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

func init() {
	defUnary([]unaryFn{
		{op: &ErfOp, name: "erf", dtypes: realOnly, dom: anywhere, doc: "y = erf x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Erf, D1: erfD1, D2: erfD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				return e.scale(twoOverSqrtPi, e.exp(e.neg(e.square(x))))
			}},
		{op: &LgammaOp, name: "lgamma", dtypes: realOnly, dom: positive, doc: "y = log|Gamma(x)|",
			spec:  UnarySpec{Real: Func1[float64]{F: lgamma, D1: polygammaD(0), D2: polygammaD(1)}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(DigammaOp, x) }},
		{op: &DigammaOp, name: "digamma", dtypes: realOnly, dom: positive, doc: "y = psi(x) = Gamma'(x)/Gamma(x)",
			of: PolygammaOp(0)},
		{op: &ErfcOp, name: "erfc", dtypes: realOnly, dom: anywhere, doc: "y = 1 - erf x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Erfc, D1: erfcD1, D2: erfcD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				return e.scale(-twoOverSqrtPi, e.exp(e.neg(e.square(x))))
			}},
		{op: &ErfinvOp, name: "erfinv", dtypes: realOnly, dom: unitBall, doc: "y = erf^-1(x)",
			spec: UnarySpec{Real: Func1[float64]{F: math.Erfinv, D1: erfinvD1, D2: erfinvD2}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID {
				return e.scale(math.SqrtPi/2, e.exp(e.square(y)))
			}},
		{op: &ErfcxOp, name: "erfcx", dtypes: realOnly, dom: anywhere, doc: "y = e^(x²) erfc(x)",
			spec: UnarySpec{Real: Func1[float64]{F: erfcx, D1: erfcxD1, D2: erfcxD2}},
			deriv: func(e expr, x, y cr.NodeID) cr.NodeID {
				return e.shift(-twoOverSqrtPi, e.scale(2, e.mul(x, y)))
			}},
		{op: &NdtrOp, name: "ndtr", dtypes: realOnly, dom: anywhere, doc: "y = Phi(x), the standard normal CDF",
			spec: UnarySpec{Real: Func1[float64]{F: ndtr, D1: ndtrD1, D2: ndtrD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				return e.scale(invSqrt2Pi, e.exp(e.scale(-0.5, e.square(x))))
			}},
		{op: &NdtriOp, name: "ndtri", dtypes: realOnly, dom: domain{0.05, 0.95, false}, doc: "y = Phi^-1(x)",
			spec: UnarySpec{Real: Func1[float64]{F: ndtri, D1: ndtriD1, D2: ndtriD2}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID {
				return e.scale(math.Sqrt2*math.SqrtPi, e.exp(e.scale(0.5, e.square(y))))
			}},
		{op: &LogNdtrOp, name: "log_ndtr", dtypes: realOnly, dom: domain{-6, 3, false}, doc: "y = log Phi(x)",
			spec: UnarySpec{Real: Func1[float64]{F: logNdtr, D1: func(x, _ float64) float64 { return logNdtrD1(x) },
				D2: func(x, _ float64) float64 { d := logNdtrD1(x); return -d * (x + d) }}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(millsOp, x) }},
		{op: &I0Op, name: "i0", dtypes: realOnly, dom: anywhere, doc: "y = I0(x), modified Bessel function of order 0",
			spec: UnarySpec{Real: Func1[float64]{F: besselI0, D1: besselI0D1, D2: besselI0D2},
				Deriv: besselDeriv(0, false)}},
		{op: &I1Op, name: "i1", dtypes: realOnly, dom: anywhere, doc: "y = I1(x), modified Bessel function of order 1",
			spec: UnarySpec{Real: Func1[float64]{F: besselI1, D1: besselI1D1, D2: besselI1D2},
				Deriv: besselDeriv(1, false)}},
		{op: &I0eOp, name: "i0e", dtypes: realOnly, dom: offZero, doc: "y = e^-|x| I0(x)",
			spec: UnarySpec{Real: Func1[float64]{F: besselI0e, D1: besselI0eD1, D2: besselI0eD2},
				Deriv: besselDeriv(0, true)}},
		{op: &I1eOp, name: "i1e", dtypes: realOnly, dom: offZero, doc: "y = e^-|x| I1(x)",
			spec: UnarySpec{Real: Func1[float64]{F: besselI1e, D1: besselI1eD1, D2: besselI1eD2},
				Deriv: besselDeriv(1, true)}},
		{op: &EntrOp, name: "entr", dtypes: realOnly, dom: positive, doc: "y = -x log x",
			spec: UnarySpec{Real: Func1[float64]{F: entr, D1: func(x, _ float64) float64 { return -(1 + math.Log(x)) },
				D2: func(x, _ float64) float64 { return -1 / x }}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.neg(e.shift(1, e.log(x))) }},
		{name: "polygamma", dtypes: realOnly, dom: positive, doc: "y = psi^(n)(x), the n-th derivative of digamma",
			of: PolygammaOp(1),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{
					{Name: "n 3", Op: PolygammaOp(3), Inputs: []*tensor.Dense{positive.draw(rng, tensor.Float64, 2, 3)}},
					{Name: "n 2, negative x", Op: PolygammaOp(2), Inputs: []*tensor.Dense{domain{-2.8, -2.2, false}.draw(rng, tensor.Float64, 2, 3)}}}
			}},
		{name: "mvlgamma", dtypes: realOnly, dom: positive, doc: "y = log Gamma_p(x), the multivariate log-gamma function",
			of: MvlgammaOp(1),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "p 3", Op: MvlgammaOp(3), Inputs: []*tensor.Dense{domain{1.5, 3, false}.draw(rng, tensor.Float64, 2, 3)}}}
			}},
	})
}

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
func xlog1py(a, b float64) float64 { return xlog(math.Log1p, a, b) }

func xlog1pyD1(a, b, _ float64) (float64, float64) { return xlogD1(math.Log1p, a, b, 1+b) }

func xlog1pyD2(a, b, _ float64) (float64, float64, float64) { return xlogD2(a, 1+b) }

const twoOverSqrtPi = 2 / math.SqrtPi

func erfD1(x, _ float64) float64 { return twoOverSqrtPi * fastExp(-x*x) }

func erfD2(x, _ float64) float64 { return -2 * x * twoOverSqrtPi * fastExp(-x*x) }

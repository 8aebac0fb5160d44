package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// Exponentials and logarithms.
var (
	// ExpOp is the op of Exp: y = e^x; y' = y" = y. float64 and complex128 (holomorphic: xbar = conj(y) ybar).
	ExpOp cr.Op[*tensor.Dense]
	// Expm1Op is the op of Expm1: y = e^x - 1, accurate near 0; y' = y" = y + 1. float64 and complex128 (holomorphic).
	Expm1Op cr.Op[*tensor.Dense]
	// LogOp is the op of Log: y = log x (principal branch for complex); y' = 1/x, y" = -1/x². float64 (NaN for x < 0, like PyTorch) and complex128 (holomorphic).
	LogOp cr.Op[*tensor.Dense]
	// Log1pOp is the op of Log1p: y = log(1 + x), accurate near 0; y' = 1/(1+x), y" = -1/(1+x)². float64 and complex128 (holomorphic).
	Log1pOp cr.Op[*tensor.Dense]
	// Exp2Op is the op of Exp2: y = 2^x; y' = y ln 2, y" = y ln² 2. float64 and
	// complex128 (holomorphic, 2^z = e^(z ln 2)).
	Exp2Op cr.Op[*tensor.Dense]
	// Log2Op is the op of Log2: y = log x / ln 2; y' = 1/(x ln 2), y" = -1/(x² ln 2).
	// float64 (NaN for x < 0) and complex128 (principal branch, holomorphic).
	Log2Op cr.Op[*tensor.Dense]
	// Log10Op is the op of Log10: y = log x / ln 10; y' = 1/(x ln 10),
	// y" = -1/(x² ln 10). float64 and complex128 (principal branch, holomorphic).
	Log10Op cr.Op[*tensor.Dense]
	// LogitOp is the op of Logit: y = log(x/(1 - x)); y' = 1/(x(1 - x)),
	// y" = (2x - 1)/(x(1 - x))²; y and its derivatives are NaN outside [0, 1], as in
	// PyTorch. float64 only. LogitEpsOp clamps x first.
	LogitOp cr.Op[*tensor.Dense]
	// LogaddexpOp is y = log(e^a + e^b), computed without overflow. With
	// s = 1/(1 + e^(b - a)): f_a = s, f_b = 1 - s = 1/(1 + e^(a - b)),
	// f_aa = f_bb = s(1 - s) = f_a f_b, f_ab = -f_a f_b. float64 and complex128
	// (holomorphic; the branch of the logarithm is that of a + log1p(e^(b - a)) with
	// Re a >= Re b).
	LogaddexpOp cr.Op[*tensor.Dense]
	// Xlog1pyOp is y = a log1p(b), with y = 0 where a = 0 and b is not NaN: f_a =
	// log1p(b) (0 where a = 0 and b <= -1, PyTorch's mask), f_b = a/(1 + b),
	// f_ab = 1/(1 + b), f_bb = -a/(1 + b)². float64 only.
	Xlog1pyOp cr.Op[*tensor.Dense]
	// XlogyOp is y = a log b, with y = 0 where a = 0 and b is not NaN: f_a = log b
	// (0 where a = 0 and b <= 0, PyTorch's mask), f_b = a/b, f_ab = 1/b, f_bb = -a/b². float64
	// only.
	XlogyOp cr.Op[*tensor.Dense]
)

// Exp returns the elementwise ExpOp of x in a fresh tensor.
func Exp(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ExpOp, x) }

// Expm1 returns the elementwise Expm1Op of x in a fresh tensor.
func Expm1(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Expm1Op, x) }

// Log returns the elementwise LogOp of x in a fresh tensor.
func Log(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogOp, x) }

// Log1p returns the elementwise Log1pOp of x in a fresh tensor.
func Log1p(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log1pOp, x) }

// Exp2 returns the elementwise Exp2Op of x in a fresh tensor.
func Exp2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Exp2Op, x) }

// Log2 returns the elementwise Log2Op of x in a fresh tensor.
func Log2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log2Op, x) }

// Log10 returns the elementwise Log10Op of x in a fresh tensor.
func Log10(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Log10Op, x) }

// Logit returns the elementwise LogitOp of x in a fresh tensor.
func Logit(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogitOp, x) }

// Logaddexp returns log(e^a + e^b), broadcast, in a fresh tensor.
func Logaddexp(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogaddexpOp, a, b) }

// Xlog1py returns a log1p(b), broadcast, in a fresh tensor.
func Xlog1py(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Xlog1pyOp, a, b) }

// Xlogy returns a log b, broadcast, in a fresh tensor.
func Xlogy(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(XlogyOp, a, b) }

func init() {
	defUnary([]unaryFn{
		{op: &ExpOp, name: "exp", dtypes: bothDTypes, dom: anywhere, doc: "y = e^x",
			spec: UnarySpec{Real: Func1[float64]{F: fastExp, Slice: expSlice, D1: outY[float64], D2: outY[float64], Pull: expPull, pullY: true,
				single: vmath.Exp32, singleD1: expD1Single, singleD2: expD2Single},
				Complex: Func1[complex128]{F: cmplx.Exp, D1: outY[complex128], D2: outY[complex128]}},
			deriv: func(_ expr, _, y cr.NodeID) cr.NodeID { return y }},
		{op: &Expm1Op, name: "expm1", dtypes: bothDTypes, dom: anywhere, doc: "y = e^x - 1",
			spec: UnarySpec{Real: Func1[float64]{F: math.Expm1, D1: yPlus1[float64], D2: yPlus1[float64]},
				Complex: Func1[complex128]{F: cexpm1, D1: yPlus1[complex128], D2: yPlus1[complex128]}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.shift(1, y) }},
		{op: &LogOp, name: "log", dtypes: bothDTypes, dom: positive, doc: "y = log x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Log, D1: invX[float64], D2: negInvX2[float64]},
				Complex: Func1[complex128]{F: cmplx.Log, D1: invX[complex128], D2: negInvX2[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.recip(x) }},
		{op: &Log1pOp, name: "log1p", dtypes: bothDTypes, dom: positive, doc: "y = log(1 + x)",
			spec: UnarySpec{Real: Func1[float64]{F: math.Log1p, D1: inv1pX[float64], D2: negInv1pX2[float64]},
				Complex: Func1[complex128]{F: clog1p, D1: inv1pX[complex128], D2: negInv1pX2[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.recip(e.shift(1, x)) }},
		{op: &Exp2Op, name: "exp2", dtypes: bothDTypes, dom: anywhere, doc: "y = 2^x",
			spec: UnarySpec{
				Real:    Func1[float64]{F: math.Exp2, D1: scaledY[float64](math.Ln2), D2: scaledY[float64](math.Ln2 * math.Ln2)},
				Complex: Func1[complex128]{F: func(z complex128) complex128 { return cmplx.Exp(z * math.Ln2) }, D1: scaledY[complex128](math.Ln2), D2: scaledY[complex128](math.Ln2 * math.Ln2)}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.scale(math.Ln2, y) }},
		{op: &Log2Op, name: "log2", dtypes: bothDTypes, dom: positive, doc: "y = log2 x",
			spec: UnarySpec{
				Real:    Func1[float64]{F: math.Log2, D1: scaledInvX[float64](1 / math.Ln2), D2: scaledNegInvX2[float64](1 / math.Ln2)},
				Complex: Func1[complex128]{F: func(z complex128) complex128 { return cmplx.Log(z) / math.Ln2 }, D1: scaledInvX[complex128](1 / math.Ln2), D2: scaledNegInvX2[complex128](1 / math.Ln2)}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.scale(1/math.Ln2, e.recip(x)) }},
		{op: &Log10Op, name: "log10", dtypes: bothDTypes, dom: positive, doc: "y = log10 x",
			spec: UnarySpec{
				Real:    Func1[float64]{F: math.Log10, D1: scaledInvX[float64](1 / math.Ln10), D2: scaledNegInvX2[float64](1 / math.Ln10)},
				Complex: Func1[complex128]{F: cmplx.Log10, D1: scaledInvX[complex128](1 / math.Ln10), D2: scaledNegInvX2[complex128](1 / math.Ln10)}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.scale(1/math.Ln10, e.recip(x)) }},
		{op: &LogitOp, dtypes: realOnly, dom: domain{0.1, 0.9, false}, doc: "y = log(x/(1 - x)), x clamped to [eps, 1 - eps] if eps >= 0",
			of: LogitEpsOp(-1),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "eps 0.05", Op: LogitEpsOp(0.05),
					Inputs: []*tensor.Dense{domain{0.1, 0.9, false}.draw(rng, tensor.Float64, 2, 3)}}}
			}},
	})
	defBinary([]binaryFn{
		{op: &LogaddexpOp, name: "logaddexp", dtypes: bothDTypes, da: anywhere, db: anywhere, doc: "y = log(e^a + e^b), broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: logaddexp, D1: logaddexpD1, D2: logaddexpD2},
				Complex: Func2[complex128]{F: clogaddexp, D1: clogaddexpD1, D2: clogaddexpD2}},
			partials: func(e expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.sigmoid(e.sub(a, b)), e.sigmoid(e.sub(b, a))
			}},
		{op: &Xlog1pyOp, name: "xlog1py", dtypes: realOnly, da: offZero, db: positive, doc: "y = a log1p(b), broadcast",
			spec: BinarySpec{Real: Func2[float64]{F: xlog1py, D1: xlog1pyD1, D2: xlog1pyD2}},
			partials: func(e expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.maskMul(e.ap(log1pyMask, a, b), e.ap(Log1pOp, b)), e.div(a, e.shift(1, b))
			}},
		{op: &XlogyOp, name: "xlogy", dtypes: realOnly, da: offZero, db: positive, doc: "y = a log b, broadcast",
			spec: BinarySpec{Real: Func2[float64]{F: xlogy, D1: xlogyD1, D2: xlogyD2}},
			partials: func(e expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.maskMul(e.ap(logyMask, a, b), e.log(b)), e.div(a, b)
			}},
	})
}

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

// The masks of xlogy's and xlog1py's f_a = log b (log1p b): 0 where a = 0 and
// b <= 0 (1 + b <= 0), unless b is NaN.
var logyMask, log1pyMask = xlogMask("xlogy_mask", 0), xlogMask("xlog1py_mask", 1)

func xlogMask(name string, off float64) stepOp {
	return stepOp{name: name, arity: 2, f: func(a, b complex128) float64 {
		x, z := real(a), real(b)
		return float01(x != 0 || z+off > 0 || z != z)
	}}
}

// expPull is exp's pullback (Func1.Pull): xbar_i = y_i ybar_i, with vmath's
// vectorised product.
func expPull(dst, _, y, yb []float64) {
	vmath.Mul(dst[:len(yb)], y, yb)
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

// xlogy(a, b) = a log b, and 0 where a = 0 unless b is NaN (PyTorch's definition).
func xlogy(a, b float64) float64 { return xlog(math.Log, a, b) }

// f_a = log b, taken as 0 where a = 0 and b <= 0 (PyTorch's mask, which keeps the
// gradient finite at b = 0); f_b = a/b.
func xlogyD1(a, b, _ float64) (float64, float64) { return xlogD1(math.Log, a, b, b) }

// f_aa = 0, f_ab = 1/b, f_bb = -a/b².
func xlogyD2(a, b, _ float64) (float64, float64, float64) { return xlogD2(a, b) }

// xlog, xlogD1 and xlogD2 are y = a log u and its partials for u = b (xlogy) or
// u = 1 + b (xlog1py), where log(b) computes log u: y = 0 where a = 0 unless b is NaN;
// f_a = log u, taken as 0 where a = 0 and u <= 0; f_b = a/u; f_aa = 0, f_ab = 1/u,
// f_bb = -a/u².
func xlog(log func(float64) float64, a, b float64) float64 {
	if a == 0 && b == b {
		return 0
	}
	return a * log(b)
}

func xlogD1(log func(float64) float64, a, b, u float64) (float64, float64) {
	var fa float64
	if a != 0 || u > 0 || b != b {
		fa = log(b)
	}
	return fa, a / u
}

func xlogD2(a, u float64) (float64, float64, float64) { return 0, 1 / u, -a / (u * u) }

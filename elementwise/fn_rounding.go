package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Rounding, signs and comparisons: piecewise constant or piecewise linear
// functions, whose derivatives are PyTorch's choices at the jumps and kinks.
var (
	// CeilOp is the op of Ceil: y = ceil x, the least integer >= x; y' = 0.
	CeilOp cr.Op[*tensor.Dense]
	// FloorOp is the op of Floor: y = floor x, the greatest integer <= x; y' = 0.
	FloorOp cr.Op[*tensor.Dense]
	// RoundOp is the op of Round: y = x rounded to the nearest integer, halves to
	// even (PyTorch's and IEEE 754's rule, math.RoundToEven); y' = 0. RoundDecimalsOp
	// rounds to other decimal places.
	RoundOp cr.Op[*tensor.Dense]
	// TruncOp is the op of Trunc: y = trunc x, x rounded toward 0; y' = 0.
	TruncOp cr.Op[*tensor.Dense]
	// FracOp is the op of Frac: y = x - trunc x, with the sign of x; y' = 1 (PyTorch's
	// derivative, also at the integers where y jumps), y" = 0.
	FracOp cr.Op[*tensor.Dense]
	// SignOp is the op of Sign: y = -1, 0 or 1 as x < 0, x = 0 or x > 0 (NaN stays
	// NaN); y' = 0. For complex128 use SgnOp.
	SignOp cr.Op[*tensor.Dense]
	// SgnOp is the op of Sgn: y = x/|x|, and 0 at x = 0. float64: Sign. complex128
	// (not holomorphic): with r = |z|, the Wirtinger derivatives f_z = 1/(2r),
	// f_zbar = -z²/(2r³), f_zz = -conj(z)/(4r³), f_zzbar = -z/(4r³),
	// f_zbarzbar = 3z³/(4r⁵), all taken as 0 at z = 0 (PyTorch's choice there).
	SgnOp cr.Op[*tensor.Dense]
	// NanToNumOp is the op of NanToNum: y = x for finite x, 0 for NaN, and the
	// largest finite float64 of the sign of an infinity (PyTorch's defaults);
	// y' = 1 where x is finite and 0 elsewhere (PyTorch's), y" = 0. float64 only.
	// NanToNumValuesOp takes other replacements.
	NanToNumOp cr.Op[*tensor.Dense]
	// FrexpOp is the op of Frexp: the mantissa m of x = m 2^e with 0.5 <= |m| < 1 (0
	// for x = 0, x itself for ±Inf and NaN), the first output of PyTorch's frexp (the
	// exponent e, an integer, has no derivative and is left out); y' = 2^-e, PyTorch's
	// derivative, also at the powers of 2 where m jumps; y" = 0. float64 only.
	FrexpOp cr.Op[*tensor.Dense]
	// MaximumOp is y = max(a, b), NaN if either is NaN: the larger input gets the
	// cotangent; at a tie a = b each gets half of it (PyTorch's rule, f_a = f_b =
	// 1/2); second derivatives are 0. float64 only.
	MaximumOp cr.Op[*tensor.Dense]
	// MinimumOp is y = min(a, b), with the tie rule of MaximumOp. float64 only.
	MinimumOp cr.Op[*tensor.Dense]
	// FmaxOp is y = max(a, b) ignoring NaN (the other argument if one is NaN, NaN
	// if both are): a gets the cotangent where a >= b or b is NaN, b elsewhere, so a
	// tie goes to a (PyTorch's fmax; MaximumOp splits ties). float64 only.
	FmaxOp cr.Op[*tensor.Dense]
	// FminOp is y = min(a, b) ignoring NaN, with the tie rule of FmaxOp (a gets the
	// cotangent where a <= b or b is NaN). float64 only.
	FminOp cr.Op[*tensor.Dense]
	// ClampMaxOp is y = min(a, b), PyTorch's clamp_max(a, max=b) (NaN if either is
	// NaN): a gets the cotangent where a <= b, b where a > b, so a tie goes to a.
	// float64 only.
	ClampMaxOp cr.Op[*tensor.Dense]
	// ClampMinOp is y = max(a, b), PyTorch's clamp_min(a, min=b): a gets the
	// cotangent where a >= b, b where a < b. float64 only.
	ClampMinOp cr.Op[*tensor.Dense]
)

// Ceil returns the elementwise CeilOp of x in a fresh tensor.
func Ceil(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CeilOp, x) }

// Floor returns the elementwise FloorOp of x in a fresh tensor.
func Floor(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FloorOp, x) }

// Round returns the elementwise RoundOp of x in a fresh tensor.
func Round(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RoundOp, x) }

// Trunc returns the elementwise TruncOp of x in a fresh tensor.
func Trunc(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TruncOp, x) }

// Frac returns the elementwise FracOp of x in a fresh tensor.
func Frac(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FracOp, x) }

// Sign returns the elementwise SignOp of x in a fresh tensor.
func Sign(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SignOp, x) }

// Sgn returns the elementwise SgnOp of x in a fresh tensor.
func Sgn(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SgnOp, x) }

// NanToNum returns the elementwise NanToNumOp of x in a fresh tensor.
func NanToNum(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(NanToNumOp, x) }

// Frexp returns the elementwise FrexpOp of x (the mantissas) in a fresh tensor.
func Frexp(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FrexpOp, x) }

// Maximum returns max(a, b), broadcast, in a fresh tensor.
func Maximum(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MaximumOp, a, b) }

// Minimum returns min(a, b), broadcast, in a fresh tensor.
func Minimum(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MinimumOp, a, b) }

// Fmax returns max(a, b) ignoring NaN, broadcast, in a fresh tensor.
func Fmax(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FmaxOp, a, b) }

// Fmin returns min(a, b) ignoring NaN, broadcast, in a fresh tensor.
func Fmin(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FminOp, a, b) }

// ClampMax returns min(a, b), broadcast, in a fresh tensor.
func ClampMax(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ClampMaxOp, a, b) }

// ClampMin returns max(a, b), broadcast, in a fresh tensor.
func ClampMin(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ClampMinOp, a, b) }

func init() {
	defUnary([]unaryFn{
		{op: &CeilOp, name: "ceil", dtypes: realOnly, dom: offInt, doc: "y = ceil x, y' = 0",
			spec: piecewiseConstant(math.Ceil)},
		{op: &FloorOp, name: "floor", dtypes: realOnly, dom: offInt, doc: "y = floor x, y' = 0",
			spec: piecewiseConstant(math.Floor)},
		{op: &RoundOp, name: "round", dtypes: realOnly, dom: offInt, doc: "y = x rounded to decimals places, halves to even; y' = 0",
			spec: piecewiseConstant(math.RoundToEven),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "decimals -1", Op: RoundDecimalsOp(-1),
					Inputs: []*tensor.Dense{offInt.draw(rng, tensor.Float64, 2, 3)}}}
			}},
		{op: &TruncOp, name: "trunc", dtypes: realOnly, dom: offInt, doc: "y = trunc x, y' = 0",
			spec: piecewiseConstant(math.Trunc)},
		{op: &FracOp, name: "frac", dtypes: realOnly, dom: offInt, doc: "y = x - trunc x, y' = 1",
			spec: UnarySpec{Real: Func1[float64]{F: frac, D1: one[float64], D2: zero[float64]}},
			vjp:  passVJP},
		{op: &SignOp, name: "sign", dtypes: realOnly, dom: offZero, doc: "y = sign x, y' = 0",
			spec: piecewiseConstant(signF)},
		{op: &SgnOp, name: "sgn", dtypes: bothDTypes, dom: offZero, doc: "y = x/|x|, 0 at 0",
			spec: UnarySpec{Real: piecewiseConstant(signF).Real,
				Wirtinger: Wirtinger{F: sgnC, D1: sgnCD1, D2: sgnCD2}},
			// sgn: 0 on float64; y = z/r has ydot = (zdot - y Re(conj(y) zdot))/r, whose
			// adjoint is xbar = (ybar - y Re(conj(y) ybar))/r, 0 at z = 0.
			deriv: func(expr, cr.NodeID, cr.NodeID) cr.NodeID { return 0 },
			vjp: func(e expr, x, y, ybar cr.NodeID) cr.NodeID {
				t := e.real(e.mul(e.conj(y), ybar))
				return e.mul(e.sub(ybar, e.mul(y, t)), e.invOrZero(e.ap(AbsOp, x)))
			}},
		{op: &NanToNumOp, name: "nan_to_num", dtypes: realOnly, dom: anywhere, doc: "y = x with NaN and ±Inf replaced; y' = 1 where x is finite",
			of: NanToNumValuesOp(0, math.MaxFloat64, -math.MaxFloat64)},
		{op: &FrexpOp, name: "frexp", dtypes: realOnly, dom: domain{0.55, 0.95, true}, doc: "y = the mantissa of x in [0.5, 1), y' = 2^-e",
			spec: UnarySpec{Real: Func1[float64]{F: mantissa, D1: mantissaD1, D2: zero[float64]}},
			step: true},
	})
	defBinary([]binaryFn{
		{op: &MaximumOp, name: "maximum", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = max(a, b), broadcast; ties split 1/2, 1/2",
			spec:  BinarySpec{Real: Func2[float64]{F: math.Max, D1: maximumD1, D2: zeroD2[float64]}},
			steps: stepsAB},
		{op: &MinimumOp, name: "minimum", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = min(a, b), broadcast; ties split 1/2, 1/2",
			spec:  BinarySpec{Real: Func2[float64]{F: math.Min, D1: minimumD1, D2: zeroD2[float64]}},
			steps: stepsAB},
		{op: &FmaxOp, name: "fmax", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = max(a, b) ignoring NaN, broadcast; ties go to a",
			spec:  BinarySpec{Real: Func2[float64]{F: fmax, D1: fmaxD1, D2: zeroD2[float64]}},
			steps: stepsAB},
		{op: &FminOp, name: "fmin", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = min(a, b) ignoring NaN, broadcast; ties go to a",
			spec:  BinarySpec{Real: Func2[float64]{F: fmin, D1: fminD1, D2: zeroD2[float64]}},
			steps: stepsAB},
		{op: &ClampMaxOp, name: "clamp_max", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = min(a, b) (clamp_max), broadcast; ties go to a",
			spec:  BinarySpec{Real: Func2[float64]{F: math.Min, D1: clampMaxD1, D2: zeroD2[float64]}},
			steps: stepsAB},
		{op: &ClampMinOp, name: "clamp_min", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = max(a, b) (clamp_min), broadcast; ties go to a",
			spec:  BinarySpec{Real: Func2[float64]{F: math.Max, D1: clampMinD1, D2: zeroD2[float64]}},
			steps: stepsAB},
	})
}

func mantissa(x float64) float64 { m, _ := math.Frexp(x); return m }

func mantissaD1(x, _ float64) float64 {
	_, e := math.Frexp(x)
	return math.Ldexp(1, -e)
}

// RoundDecimalsOp returns the op of PyTorch's round(x, decimals): x rounded to
// decimals decimal places (to the left of the point for negative decimals), halves
// to even, computed as PyTorch does: RoundToEven(x 10^d)/10^d for d > 0 and
// RoundToEven(x/10^-d) 10^-d for d < 0. y' = 0. float64 only; the op name is "round".
func RoundDecimalsOp(decimals int) cr.Op[*tensor.Dense] {
	if decimals == 0 {
		return RoundOp
	}
	p := math.Pow(10, math.Abs(float64(decimals)))
	f := func(x float64) float64 { return math.RoundToEven(x/p) * p }
	if decimals > 0 {
		f = func(x float64) float64 { return math.RoundToEven(x*p) / p }
	}
	return Unary("round", piecewiseConstant(f))
}

// RoundDecimals returns RoundDecimalsOp(decimals) of x in a fresh tensor.
func RoundDecimals(x *tensor.Dense, decimals int) (*tensor.Dense, error) {
	return cr.Eval(RoundDecimalsOp(decimals), x)
}

// NanToNumValuesOp returns the op of PyTorch's nan_to_num(x, nan, posinf, neginf):
// y = x for finite x, and nan, posinf or neginf in place of NaN, +Inf and -Inf;
// y' = 1 where x is finite and 0 elsewhere, y" = 0. float64 only; the op name is
// "nan_to_num".
func NanToNumValuesOp(nan, posinf, neginf float64) cr.Op[*tensor.Dense] {
	return Unary("nan_to_num", piecewiseLinear("nan_to_num", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			switch {
			case x != x:
				return nan
			case math.IsInf(x, 1):
				return posinf
			case math.IsInf(x, -1):
				return neginf
			}
			return x
		},
		D1: func(x, _ float64) float64 {
			if math.IsInf(x, 0) || x != x {
				return 0
			}
			return 1
		},
		D2: zero[float64]}}))
}

// NanToNumValues returns NanToNumValuesOp(nan, posinf, neginf) of x in a fresh tensor.
func NanToNumValues(x *tensor.Dense, nan, posinf, neginf float64) (*tensor.Dense, error) {
	return cr.Eval(NanToNumValuesOp(nan, posinf, neginf), x)
}

// piecewiseConstant is the spec of a float64 function whose derivatives are taken as
// 0 everywhere.
func piecewiseConstant(f func(float64) float64) UnarySpec {
	return UnarySpec{Real: Func1[float64]{F: f, D1: zero[float64], D2: zero[float64]}, Deriv: zeroDeriv}
}

// frac is x - trunc x; NaN and ±Inf give NaN, as in PyTorch.
func frac(x float64) float64 { return x - math.Trunc(x) }

func signF(x float64) float64 { return sign(x, 0) }

// sgnC is z/|z|, 0 at 0.
func sgnC(z complex128) complex128 {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0
	}
	return z / complex(r, 0)
}

// sgnCD1 is (f_z, f_zbar) = (1/(2r), -z²/(2r³)) for f = z (z conj(z))^(-1/2).
func sgnCD1(z, _ complex128) (complex128, complex128) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0
	}
	return complex(0.5/r, 0), -z * z / complex(2*r*r*r, 0)
}

// sgnCD2 is (f_zz, f_zzbar, f_zbarzbar) = (-conj(z)/(4r³), -z/(4r³), 3z³/(4r⁵)).
func sgnCD2(z, _ complex128) (complex128, complex128, complex128) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0, 0
	}
	r3 := complex(4*r*r*r, 0)
	return -cmplx.Conj(z) / r3, -z / r3, 3 * z * z * z / (r3 * complex(r*r, 0))
}

// maximum: the larger argument gets the whole cotangent; a tie splits it evenly,
// 0.5 each (PyTorch's choice, the mean of the two one-sided derivatives); where an
// argument is NaN (y is NaN) both get it, as PyTorch's masks give.
func maximumD1(a, b, _ float64) (float64, float64) {
	switch {
	case a > b:
		return 1, 0
	case a < b:
		return 0, 1
	case a == b:
		return 0.5, 0.5
	}
	return 1, 1
}

func minimumD1(a, b, _ float64) (float64, float64) {
	switch {
	case a < b:
		return 1, 0
	case a > b:
		return 0, 1
	case a == b:
		return 0.5, 0.5
	}
	return 1, 1
}

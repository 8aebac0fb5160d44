package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Rounding and sign. These functions are piecewise constant (frac and nan_to_num
// piecewise the identity), so their derivatives are those of PyTorch: 0 for the
// rounding functions and sign everywhere, also at the jumps, where the function has
// no derivative; 1 for frac; and no second-order term. All are float64 only, like
// PyTorch's, except sgn.
var (
	// CeilOp is the op of Ceil: y = ceil x, the least integer >= x; y' = 0.
	CeilOp = Unary("ceil", piecewiseConstant(math.Ceil))
	// FloorOp is the op of Floor: y = floor x, the greatest integer <= x; y' = 0.
	FloorOp = Unary("floor", piecewiseConstant(math.Floor))
	// RoundOp is the op of Round: y = x rounded to the nearest integer, halves to
	// even (PyTorch's and IEEE 754's rule, math.RoundToEven); y' = 0. RoundDecimalsOp
	// rounds to other decimal places.
	RoundOp = Unary("round", piecewiseConstant(math.RoundToEven))
	// TruncOp is the op of Trunc: y = trunc x, x rounded toward 0; y' = 0.
	TruncOp = Unary("trunc", piecewiseConstant(math.Trunc))
	// FracOp is the op of Frac: y = x - trunc x, with the sign of x; y' = 1 (PyTorch's
	// derivative, also at the integers where y jumps), y" = 0.
	FracOp = Unary("frac", UnarySpec{Real: Func1[float64]{F: frac, D1: one[float64], D2: zero[float64]}})
	// SignOp is the op of Sign: y = -1, 0 or 1 as x < 0, x = 0 or x > 0 (NaN stays
	// NaN); y' = 0. For complex128 use SgnOp.
	SignOp = Unary("sign", piecewiseConstant(signF))
	// SgnOp is the op of Sgn: y = x/|x|, and 0 at x = 0. float64: Sign. complex128
	// (not holomorphic): with r = |z|, the Wirtinger derivatives f_z = 1/(2r),
	// f_zbar = -z²/(2r³), f_zz = -conj(z)/(4r³), f_zzbar = -z/(4r³),
	// f_zbarzbar = 3z³/(4r⁵), all taken as 0 at z = 0 (PyTorch's choice there).
	SgnOp = Unary("sgn", UnarySpec{Real: piecewiseConstant(signF).Real,
		Wirtinger: Wirtinger{F: sgnC, D1: sgnCD1, D2: sgnCD2}})
	// NanToNumOp is the op of NanToNum: y = x for finite x, 0 for NaN, and the
	// largest finite float64 of the sign of an infinity (PyTorch's defaults);
	// y' = 1 where x is finite and 0 elsewhere (PyTorch's), y" = 0. float64 only.
	// NanToNumValuesOp takes other replacements.
	NanToNumOp = NanToNumValuesOp(0, math.MaxFloat64, -math.MaxFloat64)
	// FrexpOp is the op of Frexp: the mantissa m of x = m 2^e with 0.5 <= |m| < 1 (0
	// for x = 0, x itself for ±Inf and NaN), the first output of PyTorch's frexp (the
	// exponent e, an integer, has no derivative and is left out); y' = 2^-e, PyTorch's
	// derivative, also at the powers of 2 where m jumps; y" = 0. float64 only.
	FrexpOp = Unary("frexp", UnarySpec{Real: Func1[float64]{F: mantissa, D1: mantissaD1, D2: zero[float64]}})
)

// Frexp returns the elementwise FrexpOp of x (the mantissas) in a fresh tensor.
func Frexp(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FrexpOp, x) }

func mantissa(x float64) float64 { m, _ := math.Frexp(x); return m }

func mantissaD1(x, _ float64) float64 {
	_, e := math.Frexp(x)
	return math.Ldexp(1, -e)
}

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

package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// More binary ops, broadcasting like the others (see AddOp). The piecewise ones have
// PyTorch's derivatives, including its choice at ties, and no second-order term.
var (
	// CopysignOp is y = |a| with the sign of b (its sign bit, so -0 counts as
	// negative): f_a = y/a = ±1, taken as 0 at a = 0 (PyTorch's), f_b = 0. float64
	// only.
	CopysignOp = Binary("copysign", BinarySpec{Real: Func2[float64]{F: math.Copysign, D1: copysignD1, D2: zeroD2[float64]}})
	// FmaxOp is y = max(a, b) ignoring NaN (the other argument if one is NaN, NaN
	// if both are): a gets the cotangent where a >= b or b is NaN, b elsewhere, so a
	// tie goes to a (PyTorch's fmax; MaximumOp splits ties). float64 only.
	FmaxOp = Binary("fmax", BinarySpec{Real: Func2[float64]{F: fmax, D1: fmaxD1, D2: zeroD2[float64]}})
	// FminOp is y = min(a, b) ignoring NaN, with the tie rule of FmaxOp (a gets the
	// cotangent where a <= b or b is NaN). float64 only.
	FminOp = Binary("fmin", BinarySpec{Real: Func2[float64]{F: fmin, D1: fminD1, D2: zeroD2[float64]}})
	// ClampMaxOp is y = min(a, b), PyTorch's clamp_max(a, max=b) (NaN if either is
	// NaN): a gets the cotangent where a <= b, b where a > b, so a tie goes to a.
	// float64 only.
	ClampMaxOp = Binary("clamp_max", BinarySpec{Real: Func2[float64]{F: math.Min, D1: clampMaxD1, D2: zeroD2[float64]}})
	// ClampMinOp is y = max(a, b), PyTorch's clamp_min(a, min=b): a gets the
	// cotangent where a >= b, b where a < b. float64 only.
	ClampMinOp = Binary("clamp_min", BinarySpec{Real: Func2[float64]{F: math.Max, D1: clampMinD1, D2: zeroD2[float64]}})
	// LdexpOp is y = a 2^b (b need not be an integer, as in PyTorch): f_a = 2^b,
	// f_b = y ln 2, f_aa = 0, f_ab = 2^b ln 2, f_bb = y ln² 2. float64 and complex128
	// (holomorphic, 2^b = e^(b ln 2)).
	LdexpOp = Binary("ldexp", BinarySpec{
		Real:    Func2[float64]{F: func(a, b float64) float64 { return a * math.Exp2(b) }, D1: ldexpD1[float64](math.Exp2), D2: ldexpD2[float64](math.Exp2)},
		Complex: Func2[complex128]{F: func(a, b complex128) complex128 { return a * cexp2(b) }, D1: ldexpD1(cexp2), D2: ldexpD2(cexp2)}})
)

// Copysign returns |a| with the sign of b, broadcast, in a fresh tensor.
func Copysign(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CopysignOp, a, b) }

// Fmax returns max(a, b) ignoring NaN, broadcast, in a fresh tensor.
func Fmax(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FmaxOp, a, b) }

// Fmin returns min(a, b) ignoring NaN, broadcast, in a fresh tensor.
func Fmin(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FminOp, a, b) }

// ClampMax returns min(a, b), broadcast, in a fresh tensor.
func ClampMax(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ClampMaxOp, a, b) }

// ClampMin returns max(a, b), broadcast, in a fresh tensor.
func ClampMin(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ClampMinOp, a, b) }

// Ldexp returns a 2^b, broadcast, in a fresh tensor.
func Ldexp(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LdexpOp, a, b) }

func copysignD1(a, _, y float64) (float64, float64) {
	if a == 0 {
		return 0, 0
	}
	return y / a, 0
}

func fmax(a, b float64) float64 { return ignoringNaN(math.Max, a, b) }
func fmin(a, b float64) float64 { return ignoringNaN(math.Min, a, b) }

// ignoringNaN returns f(a, b), or the argument that is not NaN if the other is (NaN
// if both are).
func ignoringNaN(f func(a, b float64) float64, a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return f(a, b)
}

// indicator returns (1, 0) if toA and (0, 1) otherwise.
func indicator(toA bool) (float64, float64) {
	if toA {
		return 1, 0
	}
	return 0, 1
}

func fmaxD1(a, b, _ float64) (float64, float64)     { return indicator(a >= b || b != b) }
func fminD1(a, b, _ float64) (float64, float64)     { return indicator(a <= b || b != b) }
func clampMinD1(a, b, _ float64) (float64, float64) { return float01(a >= b), float01(a < b) }
func clampMaxD1(a, b, _ float64) (float64, float64) { return float01(a <= b), float01(a > b) }

func float01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cexp2(z complex128) complex128 { return cmplx.Exp(z * math.Ln2) }

// ldexpD1 is (2^b, y ln 2) for y = a 2^b.
func ldexpD1[T tensor.Element](exp2 func(T) T) func(a, b, y T) (T, T) {
	return func(_, b, y T) (T, T) { return exp2(b), y * math.Ln2 }
}

// ldexpD2 is (0, 2^b ln 2, y ln² 2).
func ldexpD2[T tensor.Element](exp2 func(T) T) func(a, b, y T) (T, T, T) {
	return func(_, b, y T) (T, T, T) { return 0, exp2(b) * math.Ln2, y * (math.Ln2 * math.Ln2) }
}

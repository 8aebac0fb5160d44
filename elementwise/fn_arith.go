package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Arithmetic: negation, powers and roots, |x|, affine maps, and the broadcasting
// arithmetic of two tensors.
var (
	// NegOp is the op of Neg: y = -x; xbar = -ybar; ydot = -xdot; no second-order term. float64 and complex128.
	NegOp cr.Op[*tensor.Dense]
	// SqrtOp is the op of Sqrt: y = sqrt(x) (principal branch); y' = 1/(2y), y" = -1/(4 y x). float64 and complex128 (holomorphic).
	SqrtOp cr.Op[*tensor.Dense]
	// RsqrtOp is the op of Rsqrt: y = 1/sqrt(x); y' = -y/(2x), y" = 3y/(4x²). float64 and complex128 (holomorphic).
	RsqrtOp cr.Op[*tensor.Dense]
	// SquareOp is the op of Square: y = x²; y' = 2x, y" = 2. float64 and complex128 (holomorphic: xbar = 2 conj(x) ybar); for |x|² see Abs2.
	SquareOp cr.Op[*tensor.Dense]
	// ReciprocalOp is the op of Reciprocal: y = 1/x; y' = -y², y" = 2y³. float64 and complex128 (holomorphic).
	ReciprocalOp cr.Op[*tensor.Dense]
	// AbsOp is the op of Abs: y = |x|. float64: y' = sign(x) with the subgradient abs'(0) = 0 (PyTorch's), y" = 0. complex128 (y is float64, not holomorphic): with z = a + ib, xbar = ybar z/|z| (0 at z = 0), ydot = Re(conj(z) zdot)/|z|, and the second-order term ybar (b² adot - ab bdot + i(a² bdot - ab adot))/|z|³.
	AbsOp cr.Op[*tensor.Dense]
	// FloatPowerOp is y = a^b computed in double precision, PyTorch's float_power: on
	// float64 and complex128 it is PowOp under another name (PowOp gives the
	// derivatives and their masks).
	FloatPowerOp cr.Op[*tensor.Dense]
	// AddOp is y = a + b: f_a = f_b = 1. float64 and complex128.
	AddOp cr.Op[*tensor.Dense]
	// SubOp is y = a - b: f_a = 1, f_b = -1. float64 and complex128.
	SubOp cr.Op[*tensor.Dense]
	// MulOp is y = a b: f_a = b, f_b = a, f_ab = 1. float64 and complex128.
	MulOp cr.Op[*tensor.Dense]
	// DivOp is y = a/b: f_a = 1/b, f_b = -y/b; f_ab = -1/b², f_bb = 2y/b². float64
	// and complex128; division by zero follows IEEE 754.
	DivOp cr.Op[*tensor.Dense]
	// PowOp is y = a^b: f_a = b a^(b-1), f_b = y log a; f_aa = b(b-1) a^(b-2),
	// f_ab = a^(b-1)(1 + b log a), f_bb = y log² a. Like PyTorch, f_a is 0 where
	// b = 0 and f_b is 0 where a = 0 and Re b >= 0. float64 (math.Pow: NaN for a < 0
	// and non-integer b) and complex128 (principal branch).
	PowOp cr.Op[*tensor.Dense]
	// HypotOp is y = sqrt(a² + b²) without overflow: f_a = a/y, f_b = b/y,
	// f_aa = b²/y³, f_ab = -ab/y³, f_bb = a²/y³; all taken as 0 at a = b = 0 (the
	// subgradient of Abs). float64 only.
	HypotOp cr.Op[*tensor.Dense]
	// CopysignOp is y = |a| with the sign of b (its sign bit, so -0 counts as
	// negative): f_a = y/a = ±1, taken as 0 at a = 0 (PyTorch's), f_b = 0. float64
	// only.
	CopysignOp cr.Op[*tensor.Dense]
	// LdexpOp is y = a 2^b (b need not be an integer, as in PyTorch): f_a = 2^b,
	// f_b = y ln 2, f_aa = 0, f_ab = 2^b ln 2, f_bb = y ln² 2. float64 and complex128
	// (holomorphic, 2^b = e^(b ln 2)).
	LdexpOp cr.Op[*tensor.Dense]
	// RemainderOp is the op of Remainder: y = a - b floor(a/b), the remainder of a/b
	// with the sign of b (PyTorch's remainder and Python's %), broadcast; NaN for b = 0.
	// Its partials are PyTorch's: f_a = 1 and f_b = -floor(a/b) (the floor division of
	// PyTorch's div(a, b, rounding_mode="floor")), also at the jumps where a/b is an
	// integer; the second partials are 0. float64 only.
	RemainderOp cr.Op[*tensor.Dense]
)

// Neg returns the elementwise NegOp of x in a fresh tensor.
func Neg(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(NegOp, x) }

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

// FloatPower returns a^b, broadcast, in a fresh tensor.
func FloatPower(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(FloatPowerOp, a, b) }

// Add returns a + b, broadcast, in a fresh tensor.
func Add(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AddOp, a, b) }

// Sub returns a - b, broadcast, in a fresh tensor.
func Sub(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SubOp, a, b) }

// Mul returns a b, broadcast, in a fresh tensor.
func Mul(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MulOp, a, b) }

// Div returns a/b, broadcast, in a fresh tensor.
func Div(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(DivOp, a, b) }

// Pow returns a^b, broadcast, in a fresh tensor.
func Pow(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(PowOp, a, b) }

// Hypot returns sqrt(a² + b²), broadcast, in a fresh tensor.
func Hypot(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(HypotOp, a, b) }

// Copysign returns |a| with the sign of b, broadcast, in a fresh tensor.
func Copysign(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CopysignOp, a, b) }

// Ldexp returns a 2^b, broadcast, in a fresh tensor.
func Ldexp(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LdexpOp, a, b) }

// Remainder returns a - b floor(a/b), broadcast, in a fresh tensor (RemainderOp).
func Remainder(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RemainderOp, a, b) }

func init() {
	defUnary([]unaryFn{
		{op: &NegOp, name: "neg", dtypes: bothDTypes, dom: anywhere, doc: "y = -x",
			spec: UnarySpec{Real: Func1[float64]{F: negF[float64], Slice: negSlice, D1: minusOne[float64], D2: zero[float64], Pull: negPull, affine: true},
				Complex: Func1[complex128]{F: negF[complex128], D1: minusOne[complex128], D2: zero[complex128], affine: true}},
			vjp: func(e expr, _, _, ybar cr.NodeID) cr.NodeID { return e.neg(ybar) }},
		{op: &SqrtOp, name: "sqrt", dtypes: bothDTypes, dom: positive, doc: "y = sqrt(x)",
			spec: UnarySpec{Real: Func1[float64]{F: math.Sqrt, D1: sqrtD1[float64], D2: sqrtD2[float64],
				single: sqrtSingle, singleD1: sqrtD1Single, singleD2: sqrtD2Single},
				Complex: Func1[complex128]{F: cmplx.Sqrt, D1: sqrtD1[complex128], D2: sqrtD2[complex128]}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.scale(0.5, e.recip(y)) }},
		{op: &RsqrtOp, name: "rsqrt", dtypes: bothDTypes, dom: positive, doc: "y = 1/sqrt(x)",
			spec: UnarySpec{Real: Func1[float64]{F: func(x float64) float64 { return 1 / math.Sqrt(x) }, D1: rsqrtD1[float64], D2: rsqrtD2[float64]},
				Complex: Func1[complex128]{F: func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }, D1: rsqrtD1[complex128], D2: rsqrtD2[complex128]}},
			deriv: func(e expr, x, y cr.NodeID) cr.NodeID { return e.scale(-0.5, e.div(y, x)) }},
		{op: &SquareOp, name: "square", dtypes: bothDTypes, dom: anywhere, doc: "y = x²",
			spec: UnarySpec{Real: Func1[float64]{F: squareF[float64], Slice: squareSlice, D1: twoX[float64], D2: two[float64], Pull: squarePull},
				Complex: Func1[complex128]{F: squareF[complex128], D1: twoX[complex128], D2: two[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.scale(2, x) }},
		{op: &ReciprocalOp, name: "reciprocal", dtypes: bothDTypes, dom: offZero, doc: "y = 1/x",
			spec: UnarySpec{Real: Func1[float64]{F: recipF[float64], D1: recipD1[float64], D2: recipD2[float64]},
				Complex: Func1[complex128]{F: recipF[complex128], D1: recipD1[complex128], D2: recipD2[complex128]}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.neg(e.square(y)) }},
		{op: &AbsOp, name: "abs", dtypes: bothDTypes, dom: offZero, doc: "y = |x|, abs'(0) = 0",
			spec: UnarySpec{Real: Func1[float64]{F: absF, D1: sign, D2: zero[float64]},
				ComplexToReal: ComplexToReal{F: absC, Grad: absCD1, Hess: absCD2}},
			// abs: xbar = ybar sgn(x), which is ybar sign(x) on float64.
			vjp: func(e expr, x, _, ybar cr.NodeID) cr.NodeID { return e.mul(ybar, e.ap(SgnOp, x)) }},
		{name: "fill", dtypes: bothDTypes, dom: anywhere, doc: "y = value everywhere, y' = 0",
			of: FillOp(2.5),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "complex value", Op: FillOp(1 - 2i), Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Complex128, 2, 3)}}}
			}},
		{name: "scale", dtypes: bothDTypes, dom: anywhere, doc: "y = a x",
			of: ScaleOp(2.5), extra: complexParamSamples(ScaleOp(1-2i), anywhere)},
		{name: "shift", dtypes: bothDTypes, dom: anywhere, doc: "y = x + b",
			of: ShiftOp(-0.5), extra: complexParamSamples(ShiftOp(1i), anywhere)},
		{name: "pow_scalar", dtypes: bothDTypes, dom: positive, doc: "y = x^p",
			of: PowScalarOp(2.5),
			extra: withExtra(complexParamSamples(PowScalarOp(1.5+0.5i), positive), func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "p = 3, signed float64", Op: PowScalarOp(3),
					Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Float64, 3, 4)}}}
			})},
	})
	defBinary([]binaryFn{
		{op: &FloatPowerOp, name: "float_power", dtypes: bothDTypes, da: positive, db: anywhere, doc: "y = a^b in double precision, broadcast",
			spec:     powSpec,
			partials: powPartials},
		{op: &AddOp, name: "add", dtypes: bothDTypes, da: anywhere, db: anywhere, doc: "y = a + b, broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: addF[float64], Run: addRun[float64], PullRun: addPull[float64], Linear: true, D1: addD1[float64], D2: zeroD2[float64]},
				Complex: Func2[complex128]{F: addF[complex128], Run: addRun[complex128], PullRun: addPull[complex128], Linear: true, D1: addD1[complex128], D2: zeroD2[complex128]},
				sum:     true, single: arithAdd},
			vjp:   func(_ expr, _, _, _, ybar cr.NodeID) (cr.NodeID, cr.NodeID) { return ybar, ybar },
			extra: alphaSamples(AddAlphaOp(-3.125), AddAlphaOp(0.5+2i))},
		{op: &SubOp, name: "sub", dtypes: bothDTypes, da: anywhere, db: anywhere, doc: "y = a - b, broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: subF[float64], Run: subRun[float64], PullRun: subPull[float64], Linear: true, D1: subD1[float64], D2: zeroD2[float64]},
				Complex: Func2[complex128]{F: subF[complex128], Run: subRun[complex128], PullRun: subPull[complex128], Linear: true, D1: subD1[complex128], D2: zeroD2[complex128]},
				diff:    true, single: arithSub},
			vjp:   func(e expr, _, _, _, ybar cr.NodeID) (cr.NodeID, cr.NodeID) { return ybar, e.neg(ybar) },
			extra: alphaSamples(SubAlphaOp(2), SubAlphaOp(-1i))},
		{op: &MulOp, name: "mul", dtypes: bothDTypes, da: anywhere, db: anywhere, doc: "y = a b, broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: mulF[float64], Run: mulRun[float64], PullRun: mulPull, D1: mulD1[float64], D2: mulD2[float64]},
				Complex: Func2[complex128]{F: mulF[complex128], Run: mulRun[complex128], D1: mulD1[complex128], D2: mulD2[complex128]},
				single:  arithMul},
			partials: func(_ expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) { return b, a }},
		{op: &DivOp, name: "div", dtypes: bothDTypes, da: anywhere, db: offZero, doc: "y = a / b, broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: divF[float64], Run: divRun[float64], D1: divD1[float64], D2: divD2[float64]},
				Complex: Func2[complex128]{F: divF[complex128], Run: divRun[complex128], D1: divD1[complex128], D2: divD2[complex128]},
				single:  arithDiv},
			partials: func(e expr, _, b, y cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.recip(b), e.neg(e.div(y, b))
			}},
		{op: &PowOp, name: "pow", dtypes: bothDTypes, da: positive, db: anywhere, doc: "y = a^b, broadcast",
			spec:     powSpec,
			partials: powPartials},
		{op: &HypotOp, name: "hypot", dtypes: realOnly, da: offZero, db: anywhere, doc: "y = sqrt(a² + b²), broadcast",
			spec: BinarySpec{Real: Func2[float64]{F: math.Hypot, D1: hypotD1, D2: hypotD2}},
			// (a, b)/y, 0 at the origin.
			partials: func(e expr, a, b, y cr.NodeID) (cr.NodeID, cr.NodeID) {
				inv := e.invOrZero(y)
				return e.mul(a, inv), e.mul(b, inv)
			}},
		{op: &CopysignOp, name: "copysign", dtypes: realOnly, da: offZero, db: offZero, doc: "y = |a| with the sign of b, broadcast",
			spec:  BinarySpec{Real: Func2[float64]{F: math.Copysign, D1: copysignD1, D2: zeroD2[float64]}},
			steps: stepsA},
		{op: &LdexpOp, name: "ldexp", dtypes: bothDTypes, da: anywhere, db: anywhere, doc: "y = a 2^b, broadcast",
			spec: BinarySpec{
				Real:    Func2[float64]{F: func(a, b float64) float64 { return a * math.Exp2(b) }, D1: ldexpD1[float64](math.Exp2), D2: ldexpD2[float64](math.Exp2)},
				Complex: Func2[complex128]{F: func(a, b complex128) complex128 { return a * cexp2(b) }, D1: ldexpD1(cexp2), D2: ldexpD2(cexp2)}},
			partials: func(e expr, _, b, y cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.ap(Exp2Op, b), e.scale(math.Ln2, y)
			}},
		{op: &RemainderOp, name: "remainder", dtypes: realOnly, da: domain{0.2, 0.8, true}, db: domain{1, 1.1, true}, doc: "y = a - b floor(a/b), broadcast; f_b = -floor(a/b)",
			spec:  BinarySpec{Real: Func2[float64]{F: remainder, D1: remainderD1, D2: zeroD2[float64]}},
			steps: stepsAB,
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				// a/b in ±(2.09, 2.8): floor(a/b) is 2 or -3.
				return []cr.Sample[*tensor.Dense]{{Name: "|a| > 2|b|", Op: RemainderOp, Inputs: []*tensor.Dense{
					domain{2.3, 2.8, true}.draw(rng, tensor.Float64, 3, 4), domain{1, 1.1, true}.draw(rng, tensor.Float64, 4)}}}
			}},
	})
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

// FillOp returns the op y = value at every element of x, with x's shape and dtype
// (PyTorch's fill), for value v a tensor.Number: a constant, so its Jacobian is exactly 0, ydot = 0 and xbar = 0
// (zeros shaped like x, the true derivative), with no second-order term. A value
// with a nonzero imaginary part fills complex128 tensors only; a float64 x is then
// an error wrapping chainrules.ErrInvalidArgument, as in PyTorch. The op name is
// "fill".
func FillOp[S tensor.Number](v S) cr.Op[*tensor.Dense] {
	value := tensor.Complex128Of(v)
	spec := UnarySpec{Complex: Func1[complex128]{
		F: func(complex128) complex128 { return value }, D1: zero[complex128], D2: zero[complex128]},
		Deriv: zeroDeriv}
	if imag(value) == 0 {
		re := real(value)
		spec.Real = Func1[float64]{F: func(float64) float64 { return re }, D1: zero[float64], D2: zero[float64]}
	}
	return Unary("fill", spec)
}

// Fill returns a tensor shaped like x and of its dtype with every element value
// (FillOp(value)).
func Fill[S tensor.Number](x *tensor.Dense, value S) (*tensor.Dense, error) {
	return cr.Eval(FillOp(value), x)
}

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

func fmaxD1(a, b, _ float64) (float64, float64) { return indicator(a >= b || b != b) }

func fminD1(a, b, _ float64) (float64, float64) { return indicator(a <= b || b != b) }

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

// Arithmetic variants: remainder, and add and sub with PyTorch's alpha. Python's
// reflected operators are ops with their operands swapped: a.__radd__(b),
// __rsub__, __rmul__, __rdiv__, __rpow__ and __rmod__ are Add, Sub, Mul, Div, Pow
// and Remainder at (b, a), and PyTorch's rsub(a, b, alpha) = b - alpha a is
// SubAlpha(b, a, alpha).

// AddAlphaOp returns the op y = a + alpha b, broadcast (PyTorch's add with alpha):
// alpha a tensor.Number, f_a = 1, f_b = alpha, second partials 0, so abar = ybar and bbar = conj(alpha)
// ybar, each summed over its broadcast axes. AddAlphaOp(1) is AddOp. A complex alpha
// (imag(alpha) != 0) needs a complex128 operand, as in PyTorch: two float64
// operands are then an error wrapping chainrules.ErrInvalidArgument. The op name is
// "add".
func AddAlphaOp[S tensor.Number](alpha S) cr.Op[*tensor.Dense] {
	c := tensor.Complex128Of(alpha)
	if c == 1 {
		return AddOp
	}
	return Binary("add", axpbySpec(1, c))
}

// AddAlpha returns a + alpha b, broadcast, in a fresh tensor (AddAlphaOp(alpha)).
func AddAlpha[S tensor.Number](a, b *tensor.Dense, alpha S) (*tensor.Dense, error) {
	return cr.Eval(AddAlphaOp(alpha), a, b)
}

// SubAlphaOp returns the op y = a - alpha b, broadcast (PyTorch's sub with alpha):
// f_a = 1, f_b = -alpha, second partials 0. SubAlphaOp(1) is SubOp; complex alpha
// as in AddAlphaOp. The op name is "sub".
func SubAlphaOp[S tensor.Number](alpha S) cr.Op[*tensor.Dense] {
	c := tensor.Complex128Of(alpha)
	if c == 1 {
		return SubOp
	}
	return Binary("sub", axpbySpec(-1, c))
}

// SubAlpha returns a - alpha b, broadcast, in a fresh tensor (SubAlphaOp(alpha)).
func SubAlpha[S tensor.Number](a, b *tensor.Dense, alpha S) (*tensor.Dense, error) {
	return cr.Eval(SubAlphaOp(alpha), a, b)
}

// axpbySpec is y = a + s alpha b with s = ±1 (y = a - alpha b is computed so, not
// as a + (-alpha) b, which PyTorch's sub also gives: negation is exact).
func axpbySpec(s float64, alpha complex128) BinarySpec {
	cb := complex(s, 0) * alpha
	spec := BinarySpec{Complex: axpby(s, alpha, cb), VJP: axpbyVJP(cb)}
	if imag(alpha) == 0 {
		spec.Real = axpby(s, real(alpha), real(cb))
	}
	return spec
}

// axpby is y = a + s alpha b on the element type of alpha, with f_b = cb = s alpha.
func axpby[T tensor.Element](s float64, alpha, cb T) Func2[T] {
	return Func2[T]{
		F: func(a, b T) T {
			if s < 0 {
				return a - alpha*b
			}
			return a + alpha*b
		},
		D1: func(_, _, _ T) (T, T) { return 1, cb },
		// A literal rather than zeroD2[T], which generic code would call through a
		// wrapper.
		D2:     func(_, _, _ T) (T, T, T) { return 0, 0, 0 },
		Linear: true}
}

// remainder is PyTorch's: math.Mod (C's fmod, the sign of a) moved into the sign of b.
func remainder(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// remainderD1 is (1, -floorDiv(a, b)).
func remainderD1(a, b, _ float64) (float64, float64) { return 1, -floorDiv(a, b) }

// floorDiv is floor(a/b) computed as PyTorch's div(a, b, rounding_mode="floor")
// computes it (after CPython's float floor division): from (a - fmod(a, b))/b, which
// is an integer up to rounding, so that a/b rounding up to an integer does not move
// the result; a/b itself for b = 0.
func floorDiv(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	m := math.Mod(a, b)
	d := (a - m) / b
	if m != 0 && (b < 0) != (m < 0) {
		d--
	}
	if d == 0 {
		return math.Copysign(0, a/b)
	}
	f := math.Floor(d)
	if d-f > 0.5 {
		f++
	}
	return f
}

// pow's partials: f_a = b a^(b-1), 0 where b = 0; f_b = y log a, 0 where a = 0 and
// Re b >= 0 (PyTorch's masks, as in powD1).
var (
	powBNonzero   = stepOp{name: "pow_mask", arity: 1, f: func(b, _ complex128) float64 { return float01(b != 0) }}
	powLogDefined = stepOp{name: "pow_mask", arity: 2, f: func(a, b complex128) float64 { return float01(a != 0 || real(b) < 0) }}
)

func powPartials(e expr, a, b, y cr.NodeID) (cr.NodeID, cr.NodeID) {
	fa := e.maskMul(e.ap(powBNonzero, b), e.mul(b, e.ap(PowOp, a, e.shift(-1, b))))
	fb := e.maskMul(e.ap(powLogDefined, a, b), e.mul(y, e.log(a)))
	return fa, fb
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

// hypot: f_a = a/h, f_b = b/h; f_aa = b²/h³, f_ab = -ab/h³, f_bb = a²/h³; 0 at
// a = b = 0 (the subgradient Abs takes; PyTorch gives NaN there).
func hypotD1(a, b, h float64) (float64, float64) {
	if h == 0 {
		return 0, 0
	}
	return a / h, b / h
}

func hypotD2(a, b, h float64) (float64, float64, float64) {
	if h == 0 {
		return 0, 0, 0
	}
	h3 := h * h * h
	return b * b / h3, -a * b / h3, a * a / h3
}

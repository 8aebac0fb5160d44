package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Trigonometric functions, their inverses, angle conversions and sinc.
var (
	// SinOp is the op of Sin: y = sin x; y' = cos x, y" = -y. float64 and complex128 (holomorphic).
	SinOp cr.Op[*tensor.Dense]
	// CosOp is the op of Cos: y = cos x; y' = -sin x, y" = -y. float64 and complex128 (holomorphic).
	CosOp cr.Op[*tensor.Dense]
	// TanOp is the op of Tan: y = tan x; y' = 1 + y², y" = 2y(1 + y²). float64 and complex128 (holomorphic).
	TanOp cr.Op[*tensor.Dense]
	// AsinOp is the op of Asin: y = asin x; y' = (1 - x²)^(-1/2), y" = x (1 - x²)^(-3/2) (principal branches). float64 and complex128 (holomorphic off the cuts).
	AsinOp cr.Op[*tensor.Dense]
	// AcosOp is the op of Acos: y = acos x; y' = -(1 - x²)^(-1/2), y" = -x (1 - x²)^(-3/2). float64 and complex128 (holomorphic off the cuts).
	AcosOp cr.Op[*tensor.Dense]
	// AtanOp is the op of Atan: y = atan x; y' = 1/(1 + x²), y" = -2x/(1 + x²)². float64 and complex128 (holomorphic off the cuts).
	AtanOp cr.Op[*tensor.Dense]
	// Deg2radOp is the op of Deg2rad: y = x pi/180; y' = pi/180. float64 only, like
	// PyTorch.
	Deg2radOp cr.Op[*tensor.Dense]
	// Rad2degOp is the op of Rad2deg: y = x 180/pi; y' = 180/pi. float64 only.
	Rad2degOp cr.Op[*tensor.Dense]
	// SincOp is the op of Sinc: the normalised sinc, y = sin(pi x)/(pi x) and 1 at
	// x = 0. With u = pi x, y' = pi (u cos u - sin u)/u² and
	// y" = pi² (2 sin u - 2u cos u - u² sin u)/u³, evaluated by their Taylor series for
	// |u| < 0.1 (so y'(0) = 0 and y"(0) = -pi²/3, where PyTorch takes 0 for y'(0)
	// too). float64 and complex128 (holomorphic).
	SincOp cr.Op[*tensor.Dense]
	// Atan2Op is y = atan2(a, b), the angle of b + ia: f_a = b/r², f_b = -a/r²
	// (r² = a² + b²), f_aa = -2ab/r⁴, f_ab = (a² - b²)/r⁴, f_bb = 2ab/r⁴; all taken as
	// 0 at a = b = 0. float64 only.
	Atan2Op cr.Op[*tensor.Dense]
)

// Sin returns the elementwise SinOp of x in a fresh tensor.
func Sin(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SinOp, x) }

// Cos returns the elementwise CosOp of x in a fresh tensor.
func Cos(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CosOp, x) }

// Tan returns the elementwise TanOp of x in a fresh tensor.
func Tan(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TanOp, x) }

// Asin returns the elementwise AsinOp of x in a fresh tensor.
func Asin(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AsinOp, x) }

// Acos returns the elementwise AcosOp of x in a fresh tensor.
func Acos(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AcosOp, x) }

// Atan returns the elementwise AtanOp of x in a fresh tensor.
func Atan(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AtanOp, x) }

// Deg2rad returns the elementwise Deg2radOp of x in a fresh tensor.
func Deg2rad(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Deg2radOp, x) }

// Rad2deg returns the elementwise Rad2degOp of x in a fresh tensor.
func Rad2deg(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Rad2degOp, x) }

// Sinc returns the elementwise SincOp of x in a fresh tensor.
func Sinc(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SincOp, x) }

// Atan2 returns atan2(a, b), broadcast, in a fresh tensor.
func Atan2(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Atan2Op, a, b) }

func init() {
	defUnary([]unaryFn{
		{op: &SinOp, name: "sin", dtypes: bothDTypes, dom: anywhere, doc: "y = sin x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Sin, D1: sinD1, D2: negY[float64]},
				Complex: Func1[complex128]{F: cmplx.Sin, D1: csinD1, D2: negY[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(CosOp, x) }},
		{op: &CosOp, name: "cos", dtypes: bothDTypes, dom: anywhere, doc: "y = cos x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Cos, D1: cosD1, D2: negY[float64]},
				Complex: Func1[complex128]{F: cmplx.Cos, D1: ccosD1, D2: negY[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.neg(e.ap(SinOp, x)) }},
		{op: &TanOp, name: "tan", dtypes: bothDTypes, dom: domain{-1.2, 1.2, false}, doc: "y = tan x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Tan, D1: tanD1[float64], D2: tanD2[float64]},
				Complex: Func1[complex128]{F: cmplx.Tan, D1: tanD1[complex128], D2: tanD2[complex128]}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.shift(1, e.square(y)) }},
		{op: &AsinOp, name: "asin", dtypes: bothDTypes, dom: unitBall, doc: "y = asin x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Asin, D1: asinD1, D2: asinD2},
				Complex: Func1[complex128]{F: cmplx.Asin, D1: casinD1, D2: casinD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.rsqrt(e.oneMinus(e.square(x))) }},
		{op: &AcosOp, name: "acos", dtypes: bothDTypes, dom: unitBall, doc: "y = acos x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Acos, D1: negate(asinD1), D2: negate(asinD2)},
				Complex: Func1[complex128]{F: cmplx.Acos, D1: negate(casinD1), D2: negate(casinD2)}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.neg(e.rsqrt(e.oneMinus(e.square(x)))) }},
		{op: &AtanOp, name: "atan", dtypes: bothDTypes, dom: unitBall, doc: "y = atan x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Atan, D1: atanD1[float64], D2: atanD2[float64]},
				Complex: Func1[complex128]{F: cmplx.Atan, D1: atanD1[complex128], D2: atanD2[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.recip(e.shift(1, e.square(x))) }},
		{op: &Deg2radOp, name: "deg2rad", dtypes: realOnly, dom: anywhere, doc: "y = x pi/180",
			spec: linearSpec(math.Pi / 180)},
		{op: &Rad2degOp, name: "rad2deg", dtypes: realOnly, dom: anywhere, doc: "y = x 180/pi",
			spec: linearSpec(180 / math.Pi)},
		{op: &SincOp, name: "sinc", dtypes: bothDTypes, dom: anywhere, doc: "y = sin(pi x)/(pi x), 1 at 0",
			spec: UnarySpec{
				Real:    Func1[float64]{F: sinc, D1: sincD1, D2: sincD2},
				Complex: Func1[complex128]{F: csinc, D1: csincD1, D2: csincD2},
				Deriv:   sincDeriv(1)}},
	})
	defBinary([]binaryFn{
		{op: &Atan2Op, name: "atan2", dtypes: realOnly, da: offZero, db: anywhere, doc: "y = atan2(a, b), broadcast",
			spec: BinarySpec{Real: Func2[float64]{F: math.Atan2, D1: atan2D1, D2: atan2D2}},
			// (b, -a)/(a² + b²), 0 at the origin.
			partials: func(e expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) {
				inv := e.invOrZero(e.add(e.square(a), e.square(b)))
				return e.mul(b, inv), e.neg(e.mul(a, inv))
			}},
	})
}

func tanD1[T tensor.Element](_, y T) T { return 1 + y*y }

func tanD2[T tensor.Element](_, y T) T { return 2 * y * (1 + y*y) }

func atanD1[T tensor.Element](x, _ T) T { return 1 / (1 + x*x) }

func atanD2[T tensor.Element](x, _ T) T { return -2 * x / ((1 + x*x) * (1 + x*x)) }

func sinD1(x, _ float64) float64 { return math.Cos(x) }

func cosD1(x, _ float64) float64 { return -math.Sin(x) }

func csinD1(z, _ complex128) complex128 { return cmplx.Cos(z) }

func ccosD1(z, _ complex128) complex128 { return -cmplx.Sin(z) }

// asin' = (1 - x²)^(-1/2), asin" = x (1 - x²)^(-3/2); acos is their negative.
func asinD1(x, _ float64) float64 { return 1 / math.Sqrt(1-x*x) }

func asinD2(x, _ float64) float64 { return x / ((1 - x*x) * math.Sqrt(1-x*x)) }

func casinD1(z, _ complex128) complex128 {
	return 1 / cmplx.Sqrt(1-z*z)
}

func casinD2(z, _ complex128) complex128 { return z / ((1 - z*z) * cmplx.Sqrt(1-z*z)) }

// atan2(a, b) is the angle of b + ia: f_a = b/r², f_b = -a/r², r² = a² + b²;
// f_aa = -2ab/r⁴, f_ab = (a² - b²)/r⁴, f_bb = 2ab/r⁴. At a = b = 0 all are taken as 0
// (the choice Angle makes; PyTorch gives NaN there).
func atan2D1(a, b, _ float64) (float64, float64) {
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0
	}
	return b / r2, -a / r2
}

func atan2D2(a, b, _ float64) (float64, float64, float64) {
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0, 0
	}
	r4 := r2 * r2
	return -2 * a * b / r4, (a*a - b*b) / r4, 2 * a * b / r4
}

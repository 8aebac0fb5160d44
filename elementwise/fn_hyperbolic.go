package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// Hyperbolic functions and their inverses.
var (
	// SinhOp is the op of Sinh: y = sinh x; y' = cosh x, y" = y. float64 and complex128 (holomorphic).
	SinhOp cr.Op[*tensor.Dense]
	// CoshOp is the op of Cosh: y = cosh x; y' = sinh x, y" = y. float64 and complex128 (holomorphic).
	CoshOp cr.Op[*tensor.Dense]
	// TanhOp is the op of Tanh: y = tanh x; y' = 1 - y², y" = -2y(1 - y²). float64 and complex128 (holomorphic).
	TanhOp cr.Op[*tensor.Dense]
	// AsinhOp is the op of Asinh: y = asinh x; y' = (1 + x²)^(-1/2), y" = -x (1 + x²)^(-3/2). float64 and complex128 (holomorphic off the cuts).
	AsinhOp cr.Op[*tensor.Dense]
	// AcoshOp is the op of Acosh: y = acosh x; y' = 1/(sqrt(x-1) sqrt(x+1)), y" = -x y'/(x² - 1). float64 and complex128 (holomorphic off the cut; the product form of y' is the derivative of the principal branch in the whole plane).
	AcoshOp cr.Op[*tensor.Dense]
	// AtanhOp is the op of Atanh: y = atanh x; y' = 1/(1 - x²), y" = 2x/(1 - x²)². float64 and complex128 (holomorphic off the cuts).
	AtanhOp cr.Op[*tensor.Dense]
)

// Sinh returns the elementwise SinhOp of x in a fresh tensor.
func Sinh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SinhOp, x) }

// Cosh returns the elementwise CoshOp of x in a fresh tensor.
func Cosh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CoshOp, x) }

// Tanh returns the elementwise TanhOp of x in a fresh tensor.
func Tanh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TanhOp, x) }

// Asinh returns the elementwise AsinhOp of x in a fresh tensor.
func Asinh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AsinhOp, x) }

// Acosh returns the elementwise AcoshOp of x in a fresh tensor.
func Acosh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AcoshOp, x) }

// Atanh returns the elementwise AtanhOp of x in a fresh tensor.
func Atanh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AtanhOp, x) }

func init() {
	defUnary([]unaryFn{
		{op: &SinhOp, name: "sinh", dtypes: bothDTypes, dom: anywhere, doc: "y = sinh x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Sinh, D1: sinhD1, D2: outY[float64]},
				Complex: Func1[complex128]{F: cmplx.Sinh, D1: csinhD1, D2: outY[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(CoshOp, x) }},
		{op: &CoshOp, name: "cosh", dtypes: bothDTypes, dom: anywhere, doc: "y = cosh x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Cosh, D1: coshD1, D2: outY[float64]},
				Complex: Func1[complex128]{F: cmplx.Cosh, D1: ccoshD1, D2: outY[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(SinhOp, x) }},
		{op: &TanhOp, name: "tanh", dtypes: bothDTypes, dom: anywhere, doc: "y = tanh x",
			spec: UnarySpec{Real: Func1[float64]{F: fastTanh, Slice: tanhSlice, D1: tanhD1[float64], D2: tanhD2[float64], Pull: tanhPull,
				single: vmath.Tanh32, singleD1: tanhD1Single, singleD2: tanhD2Single},
				Complex: Func1[complex128]{F: cmplx.Tanh, D1: tanhD1[complex128], D2: tanhD2[complex128]}},
			// tanh's pullback (1 - y^2) ybar is one fused op for real values (a pass and an
			// allocation instead of three), and the expression of ops for complex ones.
			vjp: func(e expr, _, y, ybar cr.NodeID) cr.NodeID {
				if e.isComplex(y) {
					return e.mul(e.conj(e.oneMinus(e.square(y))), ybar)
				}
				return e.ap(tanhBackwardOp, y, ybar)
			}},
		{op: &AsinhOp, name: "asinh", dtypes: bothDTypes, dom: unitBall, doc: "y = asinh x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Asinh, D1: asinhD1, D2: asinhD2},
				Complex: Func1[complex128]{F: cmplx.Asinh, D1: casinhD1, D2: casinhD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.rsqrt(e.shift(1, e.square(x))) }},
		{op: &AcoshOp, name: "acosh", dtypes: bothDTypes, dom: domain{1.2, 2.5, false}, doc: "y = acosh x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Acosh, D1: acoshD1, D2: acoshD2},
				Complex: Func1[complex128]{F: cmplx.Acosh, D1: cacoshD1, D2: cacoshD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				return e.mul(e.rsqrt(e.shift(-1, x)), e.rsqrt(e.shift(1, x)))
			}},
		{op: &AtanhOp, name: "atanh", dtypes: bothDTypes, dom: unitBall, doc: "y = atanh x",
			spec: UnarySpec{Real: Func1[float64]{F: math.Atanh, D1: atanhD1[float64], D2: atanhD2[float64]},
				Complex: Func1[complex128]{F: cmplx.Atanh, D1: atanhD1[complex128], D2: atanhD2[complex128]}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.recip(e.oneMinus(e.square(x))) }},
	})
}

func tanhD1[T tensor.Element](_, y T) T { return 1 - y*y }

// Pull fast paths (Func1.Pull) of the commonest real functions: the generic
// loop's arithmetic, without a call per element.
func tanhPull(dst, _, y, yb []float64) {
	y = y[:len(yb)]
	for i, v := range yb {
		dst[i] = (1 - y[i]*y[i]) * v
	}
}

func tanhD2[T tensor.Element](_, y T) T { return -2 * y * (1 - y*y) }

func atanhD1[T tensor.Element](x, _ T) T { return 1 / (1 - x*x) }

func atanhD2[T tensor.Element](x, _ T) T { return 2 * x / ((1 - x*x) * (1 - x*x)) }

func sinhD1(x, _ float64) float64 { return math.Cosh(x) }

func coshD1(x, _ float64) float64 { return math.Sinh(x) }

func csinhD1(z, _ complex128) complex128 { return cmplx.Cosh(z) }

func ccoshD1(z, _ complex128) complex128 { return cmplx.Sinh(z) }

// asinh' = (1 + x²)^(-1/2), asinh" = -x (1 + x²)^(-3/2).
func asinhD1(x, _ float64) float64 { return 1 / math.Sqrt(1+x*x) }

func asinhD2(x, _ float64) float64 { return -x / ((1 + x*x) * math.Sqrt(1+x*x)) }

func casinhD1(z, _ complex128) complex128 {
	return 1 / cmplx.Sqrt(1+z*z)
}

func casinhD2(z, _ complex128) complex128 { return -z / ((1 + z*z) * cmplx.Sqrt(1+z*z)) }

// acosh' = 1/(sqrt(x-1) sqrt(x+1)) (the product form is the derivative of the
// principal branch everywhere off the cut; 1/sqrt(x²-1) differs in sign for Re x < 0),
// acosh" = -x acosh' / (x² - 1).
func acoshD1(x, _ float64) float64 { return 1 / (math.Sqrt(x-1) * math.Sqrt(x+1)) }

func acoshD2(x, _ float64) float64 { return -x / ((x*x - 1) * math.Sqrt(x-1) * math.Sqrt(x+1)) }

func cacoshD1(z, _ complex128) complex128 {
	return 1 / (cmplx.Sqrt(z-1) * cmplx.Sqrt(z+1))
}

func cacoshD2(z, _ complex128) complex128 {
	return -z / ((z*z - 1) * cmplx.Sqrt(z-1) * cmplx.Sqrt(z+1))
}

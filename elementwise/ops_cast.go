package elementwise

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Identities, constants and casts between float64 and complex128. PyTorch's double()
// is RealOp (the identity on float64, the real part of complex128, whose imaginary
// part PyTorch drops with a warning) and its conj_physical is ConjOp.
var (
	// PositiveOp is the op of Positive: y = x (PyTorch's positive, unary plus); y' = 1,
	// y" = 0: ydot = xdot, xbar = ybar. float64 and complex128.
	PositiveOp = Unary("positive", UnarySpec{Real: identity, Complex: identityOf[complex128]()})
	// CdoubleOp is the op of Cdouble: y = x as complex128 (PyTorch's cdouble), the
	// identity on complex128. A float64 x is promoted, R-linearly: ydot = xdot (a real
	// tangent as a complex one), and x receives the real part of its cotangent,
	// xbar = Re ybar; no second-order term.
	CdoubleOp = Unary("cdouble", UnarySpec{Complex: identityOf[complex128](), Promote: true})
	// ComplexOp is the op of Complex: y = a + ib from two float64 tensors (PyTorch's
	// complex(real, imag)), broadcast; a complex128 tensor. f_a = 1, f_b = i, so
	// ydot = adot + i bdot, abar = Re ybar, bbar = Im ybar (summed over broadcast axes);
	// no second-order term. complex128 operands are an error.
	ComplexOp = Binary("complex", BinarySpec{RealToComplex: RealToComplex{
		F:  func(a, b float64) complex128 { return complex(a, b) },
		D1: func(_, _ float64, _ complex128) (complex128, complex128) { return 1, 1i },
		D2: func(_, _ float64, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 },
	}})
	// PolarOp is the op of Polar: y = r e^(i theta) = r cos theta + i r sin theta from
	// two float64 tensors r (abs) and theta (angle) (PyTorch's polar), broadcast; a
	// complex128 tensor. f_r = e^(i theta), f_theta = i y, f_rr = 0,
	// f_r,theta = i e^(i theta), f_theta,theta = -y, so ydot = e^(i theta) rdot +
	// i y thetadot, rbar = Re(e^(-i theta) ybar) and thetabar = Re(conj(i y) ybar) =
	// Im(conj(y) ybar). r < 0 is allowed, as in PyTorch (y then points the other
	// way). complex128 operands are an error.
	PolarOp = Binary("polar", BinarySpec{RealToComplex: RealToComplex{F: polar, D1: polarD1, D2: polarD2}})
)

// Positive returns the elementwise PositiveOp of x (a copy of x) in a fresh tensor.
func Positive(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(PositiveOp, x) }

// Cdouble returns x as complex128 (CdoubleOp) in a fresh tensor.
func Cdouble(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CdoubleOp, x) }

// Complex returns re + i im, broadcast, in a fresh complex128 tensor (ComplexOp).
func Complex(re, im *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ComplexOp, re, im) }

// Polar returns abs e^(i angle), broadcast, in a fresh complex128 tensor (PolarOp).
func Polar(abs, angle *tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(PolarOp, abs, angle)
}

// FillOp returns the op y = value at every element of x, with x's shape and dtype
// (PyTorch's fill): a constant, so its Jacobian is exactly 0, ydot = 0 and xbar = 0
// (zeros shaped like x, the true derivative), with no second-order term. A value
// with a nonzero imaginary part fills complex128 tensors only; a float64 x is then
// an error wrapping chainrules.ErrInvalidArgument, as in PyTorch. The op name is
// "fill".
func FillOp(value complex128) cr.Op[*tensor.Dense] {
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
func Fill(x *tensor.Dense, value complex128) (*tensor.Dense, error) {
	return cr.Eval(FillOp(value), x)
}

// identityOf is y = x on T.
func identityOf[T tensor.Element]() Func1[T] {
	return Func1[T]{F: func(x T) T { return x }, D1: one[T], D2: zero[T]}
}

func polar(r, theta float64) complex128 {
	s, c := math.Sincos(theta)
	return complex(r*c, r*s)
}

// polarD1 is (e^(i theta), i y).
func polarD1(_, theta float64, y complex128) (complex128, complex128) {
	s, c := math.Sincos(theta)
	return complex(c, s), complex(-imag(y), real(y))
}

// polarD2 is (0, i e^(i theta), -y).
func polarD2(_, theta float64, y complex128) (complex128, complex128, complex128) {
	s, c := math.Sincos(theta)
	return 0, complex(-s, c), -y
}

package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Complex parts and conversions between real and complex tensors.
var (
	// ConjOp is the op of Conj: y = conj(x). complex128 (R-linear, not holomorphic): ydot = conj(xdot), xbar = conj(ybar), no second-order term. float64: the identity. It is also PyTorch's conj_physical.
	ConjOp cr.Op[*tensor.Dense]
	// RealOp is the op of Real: y = Re x, a float64 tensor. complex128: ydot = Re xdot, xbar = ybar (a real cotangent as a complex one). float64: the identity. It is also PyTorch's double() cast (which drops the imaginary part of complex input, with a warning).
	RealOp cr.Op[*tensor.Dense]
	// ImagOp is the op of Imag: y = Im x, a float64 tensor: ydot = Im xdot, xbar = i ybar. complex128 only: float64 input is an error, like PyTorch.
	ImagOp cr.Op[*tensor.Dense]
	// Abs2Op is the op of Abs2: y = |x|², a float64 tensor, smooth everywhere. float64: y' = 2x, y" = 2. complex128 (z = a + ib): ydot = 2 Re(conj(z) zdot), xbar = 2 z ybar, second-order term 2 ybar zdot.
	Abs2Op cr.Op[*tensor.Dense]
	// AngleOp is the op of Angle: y = arg x in (-pi, pi], a float64 tensor. complex128: ydot = Im(conj(z) zdot)/|z|², xbar = i z ybar/|z|² (0 at z = 0, PyTorch's choice), second-order term ybar (2ab adot + (b² - a²) bdot + i((b² - a²) adot - 2ab bdot))/|z|⁴. float64: 0 for x >= 0 and pi for x < 0, with zero derivatives.
	AngleOp cr.Op[*tensor.Dense]
	// PositiveOp is the op of Positive: y = x (PyTorch's positive, unary plus); y' = 1,
	// y" = 0: ydot = xdot, xbar = ybar. float64 and complex128.
	PositiveOp cr.Op[*tensor.Dense]
	// CdoubleOp is the op of Cdouble: y = x as complex128 (PyTorch's cdouble), the
	// identity on complex128. A float64 x is promoted, R-linearly: ydot = xdot (a real
	// tangent as a complex one), and x receives the real part of its cotangent,
	// xbar = Re ybar; no second-order term.
	CdoubleOp cr.Op[*tensor.Dense]
	// ComplexOp is the op of Complex: y = a + ib from two float64 tensors (PyTorch's
	// complex(real, imag)), broadcast; a complex128 tensor. f_a = 1, f_b = i, so
	// ydot = adot + i bdot, abar = Re ybar, bbar = Im ybar (summed over broadcast axes);
	// no second-order term. complex128 operands are an error.
	ComplexOp cr.Op[*tensor.Dense]
	// PolarOp is the op of Polar: y = r e^(i theta) = r cos theta + i r sin theta from
	// two float64 tensors r (abs) and theta (angle) (PyTorch's polar), broadcast; a
	// complex128 tensor. f_r = e^(i theta), f_theta = i y, f_rr = 0,
	// f_r,theta = i e^(i theta), f_theta,theta = -y, so ydot = e^(i theta) rdot +
	// i y thetadot, rbar = Re(e^(-i theta) ybar) and thetabar = Re(conj(i y) ybar) =
	// Im(conj(y) ybar). r < 0 is allowed, as in PyTorch (y then points the other
	// way). complex128 operands are an error.
	PolarOp cr.Op[*tensor.Dense]
)

// Conj returns the elementwise ConjOp of x in a fresh tensor.
func Conj(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ConjOp, x) }

// Real returns the elementwise RealOp of x in a fresh tensor.
func Real(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RealOp, x) }

// Imag returns the elementwise ImagOp of x in a fresh tensor.
func Imag(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ImagOp, x) }

// Abs2 returns the elementwise Abs2Op of x in a fresh tensor.
func Abs2(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Abs2Op, x) }

// Angle returns the elementwise AngleOp of x in a fresh tensor.
func Angle(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AngleOp, x) }

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

func init() {
	defUnary([]unaryFn{
		{op: &ConjOp, name: "conj", dtypes: bothDTypes, dom: anywhere, doc: "y = conj(x)",
			spec: UnarySpec{Real: identity, Wirtinger: Wirtinger{F: cmplx.Conj, D1: conjD1, D2: conjD2}},
			vjp:  func(e expr, _, _, ybar cr.NodeID) cr.NodeID { return e.conj(ybar) }},
		{op: &RealOp, name: "real", dtypes: bothDTypes, dom: anywhere, doc: "y = Re x",
			spec: UnarySpec{Real: identity, ComplexToReal: ComplexToReal{F: realC, Grad: realCD1, Hess: linearCD2}},
			vjp: func(e expr, x, _, ybar cr.NodeID) cr.NodeID {
				if e.isComplex(x) {
					return e.ap(CdoubleOp, ybar) // a real cotangent as a complex one
				}
				return ybar
			}},
		{op: &ImagOp, name: "imag", dtypes: complexOnly, dom: anywhere, doc: "y = Im x",
			spec: UnarySpec{ComplexToReal: ComplexToReal{F: imagC, Grad: imagCD1, Hess: linearCD2}},
			vjp:  func(e expr, _, _, ybar cr.NodeID) cr.NodeID { return e.scale(1i, ybar) }},
		{op: &Abs2Op, name: "abs2", dtypes: bothDTypes, dom: anywhere, doc: "y = |x|²",
			spec: UnarySpec{Real: Func1[float64]{F: squareF[float64], D1: twoX[float64], D2: two[float64]},
				ComplexToReal: ComplexToReal{F: abs2C, Grad: abs2CD1, Hess: abs2CD2}},
			vjp: func(e expr, x, _, ybar cr.NodeID) cr.NodeID { return e.mul(e.scale(2, x), ybar) }},
		{op: &AngleOp, name: "angle", dtypes: bothDTypes, dom: offZero, doc: "y = arg x",
			spec: UnarySpec{Real: Func1[float64]{F: angleReal, D1: zero[float64], D2: zero[float64]},
				ComplexToReal: ComplexToReal{F: angleC, Grad: angleCD1, Hess: angleCD2}},
			// angle: 0 on float64; xbar = ybar i z/|z|², 0 at z = 0.
			deriv: func(expr, cr.NodeID, cr.NodeID) cr.NodeID { return 0 },
			vjp: func(e expr, x, _, ybar cr.NodeID) cr.NodeID {
				return e.mul(ybar, e.mul(e.scale(1i, x), e.invOrZero(e.ap(Abs2Op, x))))
			}},
		{op: &PositiveOp, name: "positive", dtypes: bothDTypes, dom: anywhere, doc: "y = x",
			spec: UnarySpec{Real: identity, Complex: identityOf[complex128]()},
			vjp:  passVJP},
		{op: &CdoubleOp, name: "cdouble", dtypes: bothDTypes, dom: anywhere, doc: "y = x as complex128",
			spec: UnarySpec{Complex: identityOf[complex128](), Promote: true},
			vjp:  passVJP},
	})
	defBinary([]binaryFn{
		{op: &ComplexOp, name: "complex", dtypes: realOnly, da: anywhere, db: anywhere, doc: "y = a + ib from float64 a, b, broadcast",
			spec: BinarySpec{RealToComplex: RealToComplex{
				F:  func(a, b float64) complex128 { return complex(a, b) },
				D1: func(_, _ float64, _ complex128) (complex128, complex128) { return 1, 1i },
				D2: func(_, _ float64, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 },
			}},
			// complex(a, b) = a + ib: (ybar, -i ybar), whose real parts the operands get.
			vjp: func(e expr, _, _, _, ybar cr.NodeID) (cr.NodeID, cr.NodeID) {
				return ybar, e.scale(-1i, ybar)
			}},
		{op: &PolarOp, name: "polar", dtypes: realOnly, da: positive, db: anywhere, doc: "y = a e^(ib) from float64 a, b, broadcast",
			spec: BinarySpec{RealToComplex: RealToComplex{F: polar, D1: polarD1, D2: polarD2}},
			// polar(r, theta) = r e^(i theta): f_r = e^(i theta), f_theta = i y.
			partials: func(e expr, _, theta, y cr.NodeID) (cr.NodeID, cr.NodeID) {
				return e.exp(e.scale(1i, theta)), e.scale(1i, y)
			},
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "negative abs", Op: PolarOp, Inputs: []*tensor.Dense{
					anywhere.draw(rng, tensor.Float64, 3, 4), anywhere.draw(rng, tensor.Float64, 3, 4)}}}
			}},
	})
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

// angle of a real number: 0 for x >= 0, pi for x < 0 (NaN stays NaN).
func angleReal(x float64) float64 {
	if x < 0 {
		return math.Pi
	}
	if x != x {
		return x
	}
	return 0
}

// Real-valued functions of z = a + ib, with gradient (g_a, g_b) and Hessian.

func absC(z complex128) float64 { return cmplx.Abs(z) }

// absCD1 is z/|z| in parts, 0 at z = 0 (PyTorch's sgn).
func absCD1(z complex128) (float64, float64) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0
	}
	return real(z) / r, imag(z) / r
}

// absCD2 is (b², -ab, a²)/|z|³; 0 at z = 0 to match the subgradient choice.
func absCD2(z complex128) (float64, float64, float64) {
	r := cmplx.Abs(z)
	if r == 0 {
		return 0, 0, 0
	}
	a, b, r3 := real(z), imag(z), r*r*r
	return b * b / r3, -a * b / r3, a * a / r3
}

func abs2C(z complex128) float64 { return real(z)*real(z) + imag(z)*imag(z) }

func abs2CD1(z complex128) (float64, float64) { return 2 * real(z), 2 * imag(z) }

func abs2CD2(complex128) (float64, float64, float64) { return 2, 0, 2 }

func realC(z complex128) float64 { return real(z) }

func realCD1(complex128) (float64, float64) { return 1, 0 }

func imagC(z complex128) float64 { return imag(z) }

func imagCD1(complex128) (float64, float64) { return 0, 1 }

func linearCD2(complex128) (float64, float64, float64) { return 0, 0, 0 }

func angleC(z complex128) float64 { return cmplx.Phase(z) }

// angleCD1 is (-b, a)/|z|², 0 at z = 0 (PyTorch's choice).
func angleCD1(z complex128) (float64, float64) {
	a, b := real(z), imag(z)
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0
	}
	return -b / r2, a / r2
}

// angleCD2 is (2ab, b² - a², -2ab)/|z|⁴, 0 at z = 0.
func angleCD2(z complex128) (float64, float64, float64) {
	a, b := real(z), imag(z)
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0, 0
	}
	r4 := r2 * r2
	return 2 * a * b / r4, (b*b - a*a) / r4, -2 * a * b / r4
}

// conj(z) has f_z = 0, f_zbar = 1 and no second derivatives.
func conjD1(_, _ complex128) (complex128, complex128) { return 0, 1 }

func conjD2(_, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 }

package elementwise

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The derivatives of the package's ops as expressions of ops (UnarySpec.Deriv and
// VJP, BinarySpec.Partials and VJP), from which their rules record their
// pullbacks, so that a recorded backward sweep differentiates them to any order.
// This file holds the machinery and the internal ops the expressions use; the
// expressions of the table's functions are in their entries (table.go), and the
// op constructors set theirs in their specs.

// expr records expressions of ops on a recorder. Recording errors are sticky: an op
// that fails yields the zero NodeID, and the rule returns the recorder's error.
type expr struct{ r recorder }

func (e expr) ap(op cr.Op[*tensor.Dense], in ...cr.NodeID) cr.NodeID { return e.r.Apply(op, in...) }

func (e expr) add(a, b cr.NodeID) cr.NodeID              { return e.ap(AddOp, a, b) }
func (e expr) sub(a, b cr.NodeID) cr.NodeID              { return e.ap(SubOp, a, b) }
func (e expr) mul(a, b cr.NodeID) cr.NodeID              { return e.ap(MulOp, a, b) }
func (e expr) div(a, b cr.NodeID) cr.NodeID              { return e.ap(DivOp, a, b) }
func (e expr) neg(a cr.NodeID) cr.NodeID                 { return e.ap(NegOp, a) }
func (e expr) square(a cr.NodeID) cr.NodeID              { return e.ap(SquareOp, a) }
func (e expr) recip(a cr.NodeID) cr.NodeID               { return e.ap(ReciprocalOp, a) }
func (e expr) exp(a cr.NodeID) cr.NodeID                 { return e.ap(ExpOp, a) }
func (e expr) log(a cr.NodeID) cr.NodeID                 { return e.ap(LogOp, a) }
func (e expr) rsqrt(a cr.NodeID) cr.NodeID               { return e.ap(RsqrtOp, a) }
func (e expr) sigmoid(a cr.NodeID) cr.NodeID             { return e.ap(SigmoidOp, a) }
func (e expr) oneMinus(a cr.NodeID) cr.NodeID            { return e.ap(oneMinusOp, a) }
func (e expr) invOrZero(a cr.NodeID) cr.NodeID           { return e.ap(invOrZeroOp, a) }
func (e expr) conj(a cr.NodeID) cr.NodeID                { return conjNode(e.r, a) }
func (e expr) real(a cr.NodeID) cr.NodeID                { return realNode(e.r, a) }
func (e expr) maskMul(m, u cr.NodeID) cr.NodeID          { return e.ap(maskMulOp{}, m, u) }
func (e expr) scale(c complex128, a cr.NodeID) cr.NodeID { return e.ap(ScaleOp(c), a) }
func (e expr) shift(c complex128, a cr.NodeID) cr.NodeID { return e.ap(ShiftOp(c), a) }

// isComplex reports whether a's value is complex128.
func (e expr) isComplex(a cr.NodeID) bool { return isComplex(e.r, a) }

// The forms of the expressions, adapted to the spec fields by the functions below.
type (
	derivExpr    func(e expr, x, y cr.NodeID) cr.NodeID
	vjpExpr      func(e expr, x, y, ybar cr.NodeID) cr.NodeID
	partialsExpr func(e expr, a, b, y cr.NodeID) (fa, fb cr.NodeID)
	vjp2Expr     func(e expr, a, b, y, ybar cr.NodeID) (ga, gb cr.NodeID)
)

func (d derivExpr) spec() func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return func(r recorder, x, y cr.NodeID) (cr.NodeID, error) { return d(expr{r}, x, y), nil }
}

func (d vjpExpr) spec() func(recorder, cr.NodeID, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return func(r recorder, x, y, ybar cr.NodeID) (cr.NodeID, error) { return d(expr{r}, x, y, ybar), nil }
}

func (d partialsExpr) spec() func(recorder, cr.NodeID, cr.NodeID, cr.NodeID) (cr.NodeID, cr.NodeID, error) {
	return func(r recorder, a, b, y cr.NodeID) (cr.NodeID, cr.NodeID, error) {
		fa, fb := d(expr{r}, a, b, y)
		return fa, fb, nil
	}
}

func (d vjp2Expr) spec() func(recorder, cr.NodeID, cr.NodeID, cr.NodeID, cr.NodeID) (cr.NodeID, cr.NodeID, error) {
	return func(r recorder, a, b, y, ybar cr.NodeID) (cr.NodeID, cr.NodeID, error) {
		ga, gb := d(expr{r}, a, b, y, ybar)
		return ga, gb, nil
	}
}

// setDeriv and the other setters give a built-in op its expressions.
func setDeriv(op cr.Op[*tensor.Dense], d derivExpr) { op.(*unaryOp).spec.Deriv = d.spec() }
func setVJP(op cr.Op[*tensor.Dense], d vjpExpr)     { op.(*unaryOp).spec.VJP = d.spec() }
func setVJP2(op cr.Op[*tensor.Dense], d vjp2Expr)   { op.(*binaryOp).spec.VJP = d.spec() }

// zeroDeriv is the derivative of a piecewise-constant op: 0 everywhere (the zero
// NodeID, a zero cotangent).
func zeroDeriv(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) { return 0, nil }

// passVJP is the pullback of an identity: xbar = ybar (its real part for a float64
// input computed in complex128, which the rule takes). passVJPSpec is its spec
// form, made once for shiftSpec.
var (
	passVJP     = vjpExpr(func(_ expr, _, _, ybar cr.NodeID) cr.NodeID { return ybar })
	passVJPSpec = passVJP.spec()
)

// scaleVJP is the pullback of y = c x, xbar = conj(c) ybar, in the form of
// UnarySpec.VJP (one closure, as the op constructors make it per call).
func scaleVJP(c complex128) func(recorder, cr.NodeID, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return func(r recorder, _, _, ybar cr.NodeID) (cr.NodeID, error) { return scaleBy(r, c, ybar), nil }
}

// scaleBy records conj(c) ybar (ybar itself for c = 1).
func scaleBy(r recorder, c complex128, ybar cr.NodeID) cr.NodeID {
	if c == 1 {
		return ybar
	}
	return r.Apply(ScaleOp(complex(real(c), -imag(c))), ybar)
}

// piecewiseLinear gives a float64 spec whose D1 is piecewise constant (and D2 0),
// such as relu's, the derivative D1(x, F(x)) as a stepOp named name + "_deriv".
func piecewiseLinear(name string, spec UnarySpec) UnarySpec {
	fn := spec.Real
	step := stepOp{name: name + "_deriv", arity: 1, f: func(a, _ complex128) float64 {
		x := real(a)
		return fn.D1(x, fn.F(x))
	}}
	spec.Deriv = derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(step, x) }).spec()
	return spec
}

// stepPartials returns the partials of a float64 binary op whose partials are
// piecewise constant (maximum, fmax, copysign), as stepOps of (a, b); noB marks an
// f_b that is 0 everywhere (the zero NodeID).
func stepPartials(name string, fn Func2[float64], noB bool) partialsExpr {
	part := func(k int) stepOp {
		return stepOp{name: name + "_partial", arity: 2, f: func(a, b complex128) float64 {
			x, z := real(a), real(b)
			fa, fb := fn.D1(x, z, fn.F(x, z))
			if k == 0 {
				return fa
			}
			return fb
		}}
	}
	sa, sb := part(0), part(1)
	return func(e expr, a, b, _ cr.NodeID) (cr.NodeID, cr.NodeID) {
		fa := e.ap(sa, a, b)
		if noB {
			return fa, 0
		}
		return fa, e.ap(sb, a, b)
	}
}

// Masks (stepOps) shared by several expressions.
var (
	// positiveStep is 1 for x > 0 and 0 otherwise (NaN included).
	positiveStep = stepOp{name: "positive_step", arity: 1, f: func(a, _ complex128) float64 { return float01(real(a) > 0) }}
	// nonPositiveStep is 1 - positiveStep: 1 for x <= 0 and for NaN.
	nonPositiveStep = stepOp{name: "nonpositive_step", arity: 1, f: func(a, _ complex128) float64 { return float01(!(real(a) > 0)) }}
	// signStep is sign(x), 0 at 0 (abs' on float64).
	signStep = stepOp{name: "sign", arity: 1, f: func(a, _ complex128) float64 { return sign(real(a), 0) }}
)

// Internal ops of the expressions.
var (
	// tanhBackwardOp is f(y, g) = (1 - y^2) g, float64 (and float32 natively):
	// tanh's pullback at the output y, fused; f_y = -2 y g, f_g = 1 - y^2.
	tanhBackwardOp   = Binary("tanh_backward", tanhBackwardSpec)
	tanhBackwardSpec = BinarySpec{Real: Func2[float64]{
		F:  func(y, g float64) float64 { return (1 - y*y) * g },
		D1: func(y, g, _ float64) (float64, float64) { return -2 * y * g, 1 - y*y },
		D2: func(y, g, _ float64) (float64, float64, float64) { return -2 * g, -2 * y, 0 },

		Run:     tanhBackwardRun,   // fused_tanh.go
		PullRun: tanhBackwardPull,  // fused_tanh.go
		pull2:   tanhBackwardPull2, // fused_tanh.go
		jvp1:    tanhBackwardJVP,   // fused_tanh.go
	}, single: arithTanhBackward} // binary_single.go
	// oneMinusOp is y = 1 - x, float64 and complex128; xbar = -ybar.
	oneMinusOp = Unary("one_minus", UnarySpec{
		Real:    Func1[float64]{F: func(x float64) float64 { return 1 - x }, Slice: oneMinusSlice, D1: minusOne[float64], D2: zero[float64], Pull: negPull},
		Complex: Func1[complex128]{F: func(z complex128) complex128 { return 1 - z }, D1: minusOne[complex128], D2: zero[complex128]}})
	// invOrZeroOp is y = 1/x, and 0 at x = 0, float64 and complex128 (holomorphic
	// off 0); y' = -y² and y" = 2y³, so that every derivative is 0 at 0 too: the
	// reciprocals of recorded pullbacks that PyTorch's rules take as 0 at a
	// singular point (angle, sgn, atan2 and hypot at the origin).
	invOrZeroOp = Unary("inv_or_zero", UnarySpec{
		Real:    Func1[float64]{F: invOrZero[float64], D1: recipD1[float64], D2: recipD2[float64]},
		Complex: Func1[complex128]{F: invOrZero[complex128], D1: recipD1[complex128], D2: recipD2[complex128]}})
	// millsOp is log_ndtr', m(x) = phi(x)/Phi(x) (the inverse Mills ratio of -x),
	// with m' = -m (x + m) and m" = -m' (x + m) - m (1 + m'), recorded as the
	// expression -y (x + y) of its own output.
	millsOp = Unary("log_ndtr_deriv", UnarySpec{Real: Func1[float64]{
		F:  logNdtrD1,
		D1: func(x, y float64) float64 { return -y * (x + y) },
		D2: func(x, y float64) float64 {
			d := -y * (x + y)
			return -d*(x+y) - y*(1+d)
		}}})
)

func invOrZero[T tensor.Element](x T) T {
	if x == 0 {
		return 0
	}
	return 1 / x
}

// mvpolygammaOp is y = sum_{j<p} psi^(n)(x - j/2), the n-th derivative of
// mvlgamma(x, p) less its constant; its derivative is mvpolygammaOp(n+1, p). n must
// be in [0, 168], as for PolygammaOp.
func mvpolygammaOp(n, p int) cr.Op[*tensor.Dense] {
	if n < 0 || n > 168 || p < 1 {
		return cr.FailOp[*tensor.Dense]("mvpolygamma", cr.Errorf(cr.ErrInvalidArgument, "mvpolygamma: n must be in [0, 168] and p >= 1, got %d and %d", n, p))
	}
	return Unary("mvpolygamma", UnarySpec{
		Real: Func1[float64]{F: func(x float64) float64 { return mvpolygamma(n, p, x) },
			D1: func(x, _ float64) float64 { return mvpolygamma(n+1, p, x) },
			D2: func(x, _ float64) float64 { return mvpolygamma(n+2, p, x) }},
		Deriv: mvpolygammaDeriv(n+1, p)})
}

func mvpolygammaDeriv(n, p int) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(mvpolygammaOp(n, p), x) }).spec()
}

// polygammaDeriv is polygamma(n)' = polygamma(n+1).
func polygammaDeriv(n int) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(PolygammaOp(n+1), x) }).spec()
}

// powScalarDeriv is (x^p)' = p x^(p-1), 0 for p = 0 (the zero NodeID).
func powScalarDeriv(p complex128) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	if p == 0 {
		return zeroDeriv
	}
	return func(r recorder, x, _ cr.NodeID) (cr.NodeID, error) {
		return r.Apply(ScaleOp(p), r.Apply(PowScalarOp(p-1), x)), nil
	}
}

// softplusDeriv is sigmoid(beta x) where beta x <= threshold and 1 above, as
// above + below sigmoid(beta x) with the masks of the two regions.
func softplusDeriv(beta, threshold float64) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	above := stepOp{name: "softplus_linear", arity: 1, f: func(a, _ complex128) float64 { return float01(real(a)*beta > threshold) }}
	below := stepOp{name: "softplus_smooth", arity: 1, f: func(a, _ complex128) float64 { return float01(!(real(a)*beta > threshold)) }}
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID {
		s := e.sigmoid(e.scale(complex(beta, 0), x))
		return e.add(e.ap(above, x), e.maskMul(e.ap(below, x), s))
	}).spec()
}

// eluDeriv is the derivative of eluSpec(alpha, scale, in): scale for x > 0 and
// scale alpha in e^(in x) otherwise, recorded as scale [x > 0] + [x <= 0] c e^(in n)
// with c = scale alpha in and n = x [x <= 0] (so that e^(in n) cannot overflow on
// the side it is masked out, and n' = [x <= 0] gives the second derivative).
func eluDeriv(alpha, scale, in float64) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	c := scale * alpha * in
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID {
		pos, rest := e.ap(positiveStep, x), e.ap(nonPositiveStep, x)
		ex := e.exp(e.scale(complex(in, 0), e.maskMul(rest, x)))
		return e.add(e.scale(complex(scale, 0), pos), e.mul(rest, e.scale(complex(c, 0), ex)))
	}).spec()
}

// logitDeriv is 1/(x(1 - x)) inside [eps, 1 - eps] (or [0, 1] without clamping),
// 0 where x was clamped and NaN outside [0, 1], as a mask of those values times
// 1/(x(1 - x)), masked so that the clamped points give 0 even at x = 0 or 1.
func logitDeriv(eps float64) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	clamp := eps >= 0
	mask := stepOp{name: "logit_mask", arity: 1, f: func(a, _ complex128) float64 {
		x := real(a)
		switch {
		case clamp && (x < eps || x > 1-eps):
			return 0
		case x < 0 || x > 1:
			return math.NaN()
		}
		return 1
	}}
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID {
		return e.maskMul(e.ap(mask, x), e.recip(e.mul(x, e.oneMinus(x))))
	}).spec()
}

// axpbyVJP is the pullback of y = a + cb b: (ybar, conj(cb) ybar).
func axpbyVJP(cb complex128) func(recorder, cr.NodeID, cr.NodeID, cr.NodeID, cr.NodeID) (cr.NodeID, cr.NodeID, error) {
	return func(r recorder, _, _, _, ybar cr.NodeID) (cr.NodeID, cr.NodeID, error) {
		return ybar, scaleBy(r, cb, ybar), nil
	}
}

func init() {
	// The pullbacks of the internal ops (those of the table's functions are in
	// their entries).
	setVJP(oneMinusOp, func(e expr, _, _, ybar cr.NodeID) cr.NodeID { return e.neg(ybar) })
	setDeriv(invOrZeroOp, func(e expr, _, y cr.NodeID) cr.NodeID { return e.neg(e.square(y)) })
	setVJP2(tanhBackwardOp, tanhBackwardVJP) // fused_tanh.go: mul3 and tanh_backward again
	setDeriv(millsOp, func(e expr, x, y cr.NodeID) cr.NodeID { return e.neg(e.mul(y, e.add(x, y))) })
}

// besselIOp is y = I_n(x), or e^-|x| I_n(x) if scaled: I0Op, I1Op, I0eOp and I1eOp
// for n = 0 and 1, and for n >= 2 an internal op computed by besselIn, with
// I_n' = (I_(n-1) + I_(n+1))/2 (I_-1 = I_1) and, scaled, (e^-|x| I_n)' =
// (Ie_(n-1) + Ie_(n+1))/2 - sign(x) Ie_n: the tower the derivatives of the Bessel
// ops climb.
func besselIOp(n int, scaled bool) cr.Op[*tensor.Dense] {
	switch {
	case n == 0 && !scaled:
		return I0Op
	case n == 1 && !scaled:
		return I1Op
	case n == 0:
		return I0eOp
	case n == 1:
		return I1eOp
	}
	name := "bessel_i"
	if scaled {
		name = "bessel_ie"
	}
	f := func(k int, x float64) float64 { return besselIn(k, x, scaled) }
	return Unary(name, UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 { return f(n, x) },
		D1: func(x, y float64) float64 {
			d := (f(n-1, x) + f(n+1, x)) / 2
			if scaled {
				d -= sign(x, 0) * y
			}
			return d
		},
		D2: func(x, y float64) float64 {
			d := (f(n-2, x) + 2*y + f(n+2, x)) / 4
			if scaled {
				s := sign(x, 0)
				d += -s*(f(n-1, x)+f(n+1, x)) + s*s*y
			}
			return d
		}},
		Deriv: besselDeriv(n, scaled)})
}

// besselDeriv is the derivative of besselIOp(n, scaled) as an expression.
func besselDeriv(n int, scaled bool) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	lo := n - 1
	if lo < 0 {
		lo = -lo
	}
	return derivExpr(func(e expr, x, y cr.NodeID) cr.NodeID {
		d := e.scale(0.5, e.add(e.ap(besselIOp(lo, scaled), x), e.ap(besselIOp(n+1, scaled), x)))
		if scaled {
			d = e.sub(d, e.mul(e.ap(signStep, x), y))
		}
		return d
	}).spec()
}

// sincDerivOp is y = sinc^(n)(x), the n-th derivative of the normalised sinc,
// pi^n g_n(pi x) with g_n(u) = d^n/du^n sin(u)/u (sincG); its derivative is
// sincDerivOp(n+1). float64 and complex128 (holomorphic). n = 0 is SincOp.
func sincDerivOp(n int) cr.Op[*tensor.Dense] {
	if n == 0 {
		return SincOp
	}
	re := func(k int) func(x float64) float64 {
		c := math.Pow(math.Pi, float64(k))
		return func(x float64) float64 { return c * sincG(k, math.Pi*x, math.Abs, math.Sincos) }
	}
	cx := func(k int) func(z complex128) complex128 {
		c := complex(math.Pow(math.Pi, float64(k)), 0)
		return func(z complex128) complex128 { return c * sincG(k, math.Pi*z, cmplx.Abs, csincos) }
	}
	d := func(f func(float64) float64) func(x, y float64) float64 {
		return func(x, _ float64) float64 { return f(x) }
	}
	dc := func(f func(complex128) complex128) func(x, y complex128) complex128 {
		return func(z, _ complex128) complex128 { return f(z) }
	}
	return Unary("sinc_deriv", UnarySpec{
		Real:    Func1[float64]{F: re(n), D1: d(re(n + 1)), D2: d(re(n + 2))},
		Complex: Func1[complex128]{F: cx(n), D1: dc(cx(n + 1)), D2: dc(cx(n + 2))},
		Deriv:   sincDeriv(n + 1)})
}

// sincDeriv is sinc^(n-1)' = sinc^(n).
func sincDeriv(n int) func(recorder, cr.NodeID, cr.NodeID) (cr.NodeID, error) {
	return derivExpr(func(e expr, x, _ cr.NodeID) cr.NodeID { return e.ap(sincDerivOp(n), x) }).spec()
}

func csincos(z complex128) (complex128, complex128) { return cmplx.Sin(z), cmplx.Cos(z) }

package elementwise

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

var (
	realOnly    = []string{"float64"}
	bothDTypes  = []string{"float64", "complex128"}
	complexOnly = []string{"complex128"}
)

// domain is where an op's samples are drawn: each real and imaginary part uniform in
// [lo, hi], with a random sign when signed (to stay away from a kink at 0). The
// domains keep finite differences clear of poles, branch cuts and kinks.
type domain struct {
	lo, hi float64
	signed bool
}

var (
	anywhere = domain{-2, 2, false}
	positive = domain{0.5, 2, false}
	unitBall = domain{-0.8, 0.8, false}
	offZero  = domain{0.3, 2, true}
	// offInt keeps away from the integers and the halves, where rounding jumps.
	offInt = domain{0.1, 0.4, true}
)

// draw returns a value of dtype dt and shape drawn from d.
func (d domain) draw(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	t := tensor.RandUniform(rng, dt, d.lo, d.hi, shape...)
	if !d.signed {
		return t
	}
	if dt == tensor.Float64 {
		for i, v := range t.Float64s() {
			if rng.IntN(2) == 0 {
				t.Float64s()[i] = -v
			}
		}
		return t
	}
	c := t.Complex128s()
	for i, v := range c {
		re, im := real(v), imag(v)
		if rng.IntN(2) == 0 {
			re = -re
		}
		if rng.IntN(2) == 0 {
			im = -im
		}
		c[i] = complex(re, im)
	}
	return t
}

// unarySamples returns samples of op: float64 [3 4], a scalar and an empty [2 0],
// and complex128 [3 4] (and a promoted float64 input for a complex parameter) when the
// op supports it.
func unarySamples(op cr.Op[*tensor.Dense], dtypes []string, d domain) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		var s []cr.Sample[*tensor.Dense]
		for _, dt := range dtypes {
			if dt == "float64" {
				s = append(s,
					cr.Sample[*tensor.Dense]{Name: "float64 [3 4]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 3, 4)}},
					cr.Sample[*tensor.Dense]{Name: "float64 scalar", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64)}},
					cr.Sample[*tensor.Dense]{Name: "float64 [2 0]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 2, 0)}})
			} else {
				s = append(s,
					cr.Sample[*tensor.Dense]{Name: "complex128 [3 4]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 3, 4)}},
					cr.Sample[*tensor.Dense]{Name: "complex128 [1 5]", Op: op, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 1, 5)}})
			}
		}
		return s
	}
}

// unaryEntry returns the registry entry of a unary op family with samples drawn from d.
func unaryEntry(name string, op cr.Op[*tensor.Dense], dtypes []string, d domain, doc string) cr.Entry[*tensor.Dense] {
	return cr.Entry[*tensor.Dense]{Name: name, Arity: 1, DTypes: dtypes,
		Forward: true, SecondOrder: true, Doc: doc, Samples: unarySamples(op, dtypes, d)}
}

// Register adds the package's op families to reg — every unary op (neg, exp, ...,
// positive, cdouble, fill, softplus, scale, shift, pow_scalar) and every
// broadcasting binary op (add, sub, mul, div, pow, maximum, minimum, atan2, hypot,
// xlogy, ..., remainder, complex, polar) under its Name — with sample
// inputs for testing/ruletest. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil reg, or chainrules.ErrDuplicate if a name
// is taken; registration stops there, and the families added before it stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "elementwise.Register", append(append(unaryEntries(), binaryEntries()...), fusedTanhEntries()...)...)
}

// unaryEntries returns the registry entries of the unary op families.
func unaryEntries() []cr.Entry[*tensor.Dense] {
	return []cr.Entry[*tensor.Dense]{
		unaryEntry("neg", NegOp, bothDTypes, anywhere, "y = -x"),
		unaryEntry("exp", ExpOp, bothDTypes, anywhere, "y = e^x"),
		unaryEntry("expm1", Expm1Op, bothDTypes, anywhere, "y = e^x - 1"),
		unaryEntry("log", LogOp, bothDTypes, positive, "y = log x"),
		unaryEntry("log1p", Log1pOp, bothDTypes, positive, "y = log(1 + x)"),
		unaryEntry("sqrt", SqrtOp, bothDTypes, positive, "y = sqrt(x)"),
		unaryEntry("rsqrt", RsqrtOp, bothDTypes, positive, "y = 1/sqrt(x)"),
		unaryEntry("square", SquareOp, bothDTypes, anywhere, "y = x²"),
		unaryEntry("reciprocal", ReciprocalOp, bothDTypes, offZero, "y = 1/x"),
		unaryEntry("abs", AbsOp, bothDTypes, offZero, "y = |x|, abs'(0) = 0"),
		unaryEntry("sin", SinOp, bothDTypes, anywhere, "y = sin x"),
		unaryEntry("cos", CosOp, bothDTypes, anywhere, "y = cos x"),
		unaryEntry("tan", TanOp, bothDTypes, domain{-1.2, 1.2, false}, "y = tan x"),
		unaryEntry("sinh", SinhOp, bothDTypes, anywhere, "y = sinh x"),
		unaryEntry("cosh", CoshOp, bothDTypes, anywhere, "y = cosh x"),
		unaryEntry("tanh", TanhOp, bothDTypes, anywhere, "y = tanh x"),
		unaryEntry("asin", AsinOp, bothDTypes, unitBall, "y = asin x"),
		unaryEntry("acos", AcosOp, bothDTypes, unitBall, "y = acos x"),
		unaryEntry("atan", AtanOp, bothDTypes, unitBall, "y = atan x"),
		unaryEntry("asinh", AsinhOp, bothDTypes, unitBall, "y = asinh x"),
		unaryEntry("acosh", AcoshOp, bothDTypes, domain{1.2, 2.5, false}, "y = acosh x"),
		unaryEntry("atanh", AtanhOp, bothDTypes, unitBall, "y = atanh x"),
		unaryEntry("sigmoid", SigmoidOp, bothDTypes, anywhere, "y = 1/(1 + e^-x)"),
		unaryEntry("logsigmoid", LogSigmoidOp, realOnly, anywhere, "y = log sigmoid(x)"),
		unaryEntry("relu", ReluOp, realOnly, offZero, "y = max(x, 0), relu'(0) = 0"),
		unaryEntry("silu", SiluOp, realOnly, anywhere, "y = x sigmoid(x)"),
		unaryEntry("erf", ErfOp, realOnly, anywhere, "y = erf x"),
		unaryEntry("conj", ConjOp, bothDTypes, anywhere, "y = conj(x)"),
		unaryEntry("positive", PositiveOp, bothDTypes, anywhere, "y = x"),
		unaryEntry("cdouble", CdoubleOp, bothDTypes, anywhere, "y = x as complex128"),
		{Name: "fill", Arity: 1, DTypes: bothDTypes,
			Forward: true, SecondOrder: true, Doc: "y = value everywhere, y' = 0",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(FillOp(2.5), bothDTypes, anywhere)(rng),
					cr.Sample[*tensor.Dense]{Name: "complex value", Op: FillOp(1 - 2i), Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Complex128, 2, 3)}})
			}},
		unaryEntry("real", RealOp, bothDTypes, anywhere, "y = Re x"),
		unaryEntry("imag", ImagOp, complexOnly, anywhere, "y = Im x"),
		unaryEntry("abs2", Abs2Op, bothDTypes, anywhere, "y = |x|²"),
		unaryEntry("angle", AngleOp, bothDTypes, offZero, "y = arg x"),
		unaryEntry("frexp", FrexpOp, realOnly, domain{0.55, 0.95, true}, "y = the mantissa of x in [0.5, 1), y' = 2^-e"),
		unaryEntry("exp2", Exp2Op, bothDTypes, anywhere, "y = 2^x"),
		unaryEntry("log2", Log2Op, bothDTypes, positive, "y = log2 x"),
		unaryEntry("log10", Log10Op, bothDTypes, positive, "y = log10 x"),
		unaryEntry("deg2rad", Deg2radOp, realOnly, anywhere, "y = x pi/180"),
		unaryEntry("rad2deg", Rad2degOp, realOnly, anywhere, "y = x 180/pi"),
		unaryEntry("sinc", SincOp, bothDTypes, anywhere, "y = sin(pi x)/(pi x), 1 at 0"),
		unaryEntry("elu", EluOp, realOnly, offZero, "y = x for x > 0, alpha (e^x - 1) otherwise"),
		unaryEntry("celu", CeluOp, realOnly, offZero, "y = x for x > 0, alpha (e^(x/alpha) - 1) otherwise"),
		unaryEntry("selu", SeluOp, realOnly, offZero, "y = scale elu(x, alpha) with PyTorch's constants"),
		unaryEntry("hardshrink", HardshrinkOp, realOnly, domain{0.6, 2, true}, "y = x for |x| > lambda, 0 otherwise"),
		unaryEntry("softshrink", SoftshrinkOp, realOnly, domain{0.6, 2, true}, "y = x - lambda sign(x) for |x| > lambda, 0 otherwise"),
		unaryEntry("hardtanh", HardtanhOp, realOnly, domain{0.1, 0.9, true}, "y = min(max(x, -1), 1)"),
		unaryEntry("relu6", Relu6Op, realOnly, offZero, "y = min(max(x, 0), 6)"),
		unaryEntry("hardsigmoid", HardsigmoidOp, realOnly, anywhere, "y = min(max(x/6 + 1/2, 0), 1)"),
		unaryEntry("mish", MishOp, realOnly, anywhere, "y = x tanh(softplus(x))"),
		unaryEntry("rrelu", RreluOp, realOnly, offZero, "y = x for x > 0, slope x otherwise (evaluation mode)"),
		unaryEntry("softsign", SoftsignOp, bothDTypes, offZero, "y = x/(1 + |x|)"),
		unaryEntry("tanhshrink", TanhshrinkOp, bothDTypes, anywhere, "y = x - tanh x"),
		unaryEntry("threshold", ThresholdOp(0.1, 2), realOnly, offZero, "y = x for x > threshold, value otherwise"),
		unaryEntry("lgamma", LgammaOp, realOnly, positive, "y = log|Gamma(x)|"),
		unaryEntry("digamma", DigammaOp, realOnly, positive, "y = psi(x) = Gamma'(x)/Gamma(x)"),
		unaryEntry("erfc", ErfcOp, realOnly, anywhere, "y = 1 - erf x"),
		unaryEntry("erfinv", ErfinvOp, realOnly, unitBall, "y = erf^-1(x)"),
		unaryEntry("erfcx", ErfcxOp, realOnly, anywhere, "y = e^(x²) erfc(x)"),
		unaryEntry("ndtr", NdtrOp, realOnly, anywhere, "y = Phi(x), the standard normal CDF"),
		unaryEntry("ndtri", NdtriOp, realOnly, domain{0.05, 0.95, false}, "y = Phi^-1(x)"),
		unaryEntry("log_ndtr", LogNdtrOp, realOnly, domain{-6, 3, false}, "y = log Phi(x)"),
		unaryEntry("i0", I0Op, realOnly, anywhere, "y = I0(x), modified Bessel function of order 0"),
		unaryEntry("i1", I1Op, realOnly, anywhere, "y = I1(x), modified Bessel function of order 1"),
		unaryEntry("i0e", I0eOp, realOnly, offZero, "y = e^-|x| I0(x)"),
		unaryEntry("i1e", I1eOp, realOnly, offZero, "y = e^-|x| I1(x)"),
		unaryEntry("entr", EntrOp, realOnly, positive, "y = -x log x"),
		{Name: "polygamma", Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = psi^(n)(x), the n-th derivative of digamma",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(PolygammaOp(1), realOnly, positive)(rng),
					cr.Sample[*tensor.Dense]{Name: "n 3", Op: PolygammaOp(3), Inputs: []*tensor.Dense{positive.draw(rng, tensor.Float64, 2, 3)}},
					cr.Sample[*tensor.Dense]{Name: "n 2, negative x", Op: PolygammaOp(2),
						Inputs: []*tensor.Dense{domain{-2.8, -2.2, false}.draw(rng, tensor.Float64, 2, 3)}})
			}},
		{Name: "mvlgamma", Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = log Gamma_p(x), the multivariate log-gamma function",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(MvlgammaOp(1), realOnly, positive)(rng),
					cr.Sample[*tensor.Dense]{Name: "p 3", Op: MvlgammaOp(3), Inputs: []*tensor.Dense{domain{1.5, 3, false}.draw(rng, tensor.Float64, 2, 3)}})
			}},
		{Name: "prelu", Arity: 2, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = a for a > 0, w a otherwise; w per channel (dim 1) or one element",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				s := func(name string, a, w []int) cr.Sample[*tensor.Dense] {
					return cr.Sample[*tensor.Dense]{Name: name, Op: PreluOp,
						Inputs: []*tensor.Dense{offZero.draw(rng, tensor.Float64, a...), anywhere.draw(rng, tensor.Float64, w...)}}
				}
				return []cr.Sample[*tensor.Dense]{s("[3 4] []", []int{3, 4}, nil), s("[2 3 4] [3]", []int{2, 3, 4}, []int{3}),
					s("[] [1]", nil, []int{1}), s("[2 0] [1]", []int{2, 0}, []int{1})}
			}},
		{Name: "logit", Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = log(x/(1 - x)), x clamped to [eps, 1 - eps] if eps >= 0",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(LogitOp, realOnly, domain{0.1, 0.9, false})(rng),
					cr.Sample[*tensor.Dense]{Name: "eps 0.05", Op: LogitEpsOp(0.05),
						Inputs: []*tensor.Dense{domain{0.1, 0.9, false}.draw(rng, tensor.Float64, 2, 3)}})
			}},
		unaryEntry("ceil", CeilOp, realOnly, offInt, "y = ceil x, y' = 0"),
		unaryEntry("floor", FloorOp, realOnly, offInt, "y = floor x, y' = 0"),
		unaryEntry("trunc", TruncOp, realOnly, offInt, "y = trunc x, y' = 0"),
		unaryEntry("frac", FracOp, realOnly, offInt, "y = x - trunc x, y' = 1"),
		unaryEntry("sign", SignOp, realOnly, offZero, "y = sign x, y' = 0"),
		unaryEntry("sgn", SgnOp, bothDTypes, offZero, "y = x/|x|, 0 at 0"),
		unaryEntry("nan_to_num", NanToNumOp, realOnly, anywhere, "y = x with NaN and ±Inf replaced; y' = 1 where x is finite"),
		{Name: "round", Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = x rounded to decimals places, halves to even; y' = 0",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(RoundOp, realOnly, offInt)(rng),
					cr.Sample[*tensor.Dense]{Name: "decimals -1", Op: RoundDecimalsOp(-1),
						Inputs: []*tensor.Dense{offInt.draw(rng, tensor.Float64, 2, 3)}})
			}},

		{Name: "softplus", Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: "y = log(1 + e^(beta x))/beta, linear above the threshold",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return append(unarySamples(SoftplusOp, realOnly, anywhere)(rng),
					cr.Sample[*tensor.Dense]{Name: "beta 3, threshold 20", Op: SoftplusBetaOp(3, 20),
						Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Float64, 2, 3)}})
			}},
		{Name: "scale", Arity: 1, DTypes: bothDTypes,
			Forward: true, SecondOrder: true, Doc: "y = a x",
			Samples: paramSamples(ScaleOp(2.5), ScaleOp(1-2i), anywhere)},
		{Name: "shift", Arity: 1, DTypes: bothDTypes,
			Forward: true, SecondOrder: true, Doc: "y = x + b",
			Samples: paramSamples(ShiftOp(-0.5), ShiftOp(1i), anywhere)},
		{Name: "pow_scalar", Arity: 1, DTypes: bothDTypes,
			Forward: true, SecondOrder: true, Doc: "y = x^p",
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				s := paramSamples(PowScalarOp(2.5), PowScalarOp(1.5+0.5i), positive)(rng)
				return append(s, cr.Sample[*tensor.Dense]{Name: "p = 3, signed float64", Op: PowScalarOp(3),
					Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Float64, 3, 4)}})
			}},
	}
}

// paramSamples returns samples of a scalar-parameter op with a real parameter (on
// float64 and complex128) and with a complex one (promoting a float64 input).
func paramSamples(realParam, complexParam cr.Op[*tensor.Dense], d domain) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		s := unarySamples(realParam, bothDTypes, d)(rng)
		return append(s,
			cr.Sample[*tensor.Dense]{Name: "complex parameter, complex128", Op: complexParam, Inputs: []*tensor.Dense{d.draw(rng, tensor.Complex128, 2, 3)}},
			cr.Sample[*tensor.Dense]{Name: "complex parameter, float64 promoted", Op: complexParam, Inputs: []*tensor.Dense{d.draw(rng, tensor.Float64, 2, 3)}})
	}
}

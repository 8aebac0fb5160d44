package elementwise_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// The functions that evaluate an op without a tape, each at one point against the
// function's definition written with package math: each must compute its own op
// with its own parameters.
func TestEagerFormsAgainstDefinitions(t *testing.T) {
	type f1 = func(*tensor.Dense) (*tensor.Dense, error)
	type f2 = func(a, b *tensor.Dense) (*tensor.Dense, error)
	un := func(f f1) f2 { return func(a, _ *tensor.Dense) (*tensor.Dense, error) { return f(a) } }
	const x = -0.7
	selu := func(x float64) float64 { return 1.0507009873554805 * 1.6732632423543772 * math.Expm1(x) }
	ndtr := func(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }
	// I0 and I1 by their power series (enough terms for 1e-16 at |x| = 1).
	bessel := func(x float64, order int) float64 {
		s, term := 0.0, math.Pow(x/2, float64(order))
		for k := 0; k < 30; k++ {
			s += term
			term *= (x / 2) * (x / 2) / float64((k+1)*(k+1+order))
		}
		return s
	}
	for _, tc := range []struct {
		name string
		f    f2
		a, b float64
		want float64
	}{
		{"Celu", un(ew.Celu), x, 0, math.Expm1(x)},
		{"Elu", un(ew.Elu), x, 0, math.Expm1(x)},
		{"Hardshrink", un(ew.Hardshrink), 0.3, 0, 0},
		{"Hardsigmoid", un(ew.Hardsigmoid), x, 0, x/6 + 0.5},
		{"Hardtanh", un(ew.Hardtanh), -1.5, 0, -1},
		{"Mish", un(ew.Mish), x, 0, x * math.Tanh(math.Log1p(math.Exp(x)))},
		{"Relu6", un(ew.Relu6), 7, 0, 6},
		{"Rrelu", un(ew.Rrelu), x, 0, x * (1.0/8 + 1.0/3) / 2},
		{"Selu", un(ew.Selu), x, 0, selu(x)},
		{"SoftplusBeta", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.SoftplusBeta(a, 2, 20) }), x, 0, math.Log1p(math.Exp(2*x)) / 2},
		{"Softshrink", un(ew.Softshrink), x, 0, x + 0.5},
		{"Softsign", un(ew.Softsign), x, 0, x / (1 + -x)},
		{"Tanhshrink", un(ew.Tanhshrink), x, 0, x - math.Tanh(x)},
		{"FloatPower", ew.FloatPower, 2, 0.5, math.Sqrt2},
		{"Shift", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.Shift(a, 2) }), x, 0, x + 2},
		{"SubAlpha", func(a, b *tensor.Dense) (*tensor.Dense, error) { return ew.SubAlpha(a, b, 3) }, 1, 2, -5},
		{"Logit", un(ew.Logit), 0.3, 0, math.Log(0.3 / 0.7)},
		{"LogitEps", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.LogitEps(a, 0.1) }), 0.01, 0, math.Log(0.1 / 0.9)},
		{"Xlog1py", ew.Xlog1py, 2, 0.5, 2 * math.Log1p(0.5)},
		{"ClampMax", ew.ClampMax, 3, 2, 2},
		{"ClampMin", ew.ClampMin, 3, 4, 4},
		{"Fmax", ew.Fmax, math.NaN(), 1, 1},
		{"Fmin", ew.Fmin, math.NaN(), -1, -1},
		{"Frac", un(ew.Frac), -1.75, 0, -0.75},
		{"NanToNum", un(ew.NanToNum), math.Inf(-1), 0, -math.MaxFloat64},
		{"NanToNumValues", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.NanToNumValues(a, 1, 2, 3) }), math.Inf(1), 0, 2},
		{"RoundDecimals", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.RoundDecimals(a, 2) }), 1.2371, 0, 1.24},
		{"Sgn", un(ew.Sgn), x, 0, -1},
		{"Sign", un(ew.Sign), x, 0, -1},
		{"Digamma", un(ew.Digamma), 1, 0, -0.5772156649015329}, // -Euler's gamma
		{"Entr", un(ew.Entr), 0.5, 0, 0.5 * math.Ln2},
		{"Erfcx", un(ew.Erfcx), 0.5, 0, math.Exp(0.25) * math.Erfc(0.5)},
		{"I0e", un(ew.I0e), 1, 0, math.Exp(-1) * bessel(1, 0)},
		{"I1e", un(ew.I1e), x, 0, math.Exp(x) * bessel(x, 1)},
		{"LogNdtr", un(ew.LogNdtr), 0.3, 0, math.Log(ndtr(0.3))},
		{"Mvlgamma", un(func(a *tensor.Dense) (*tensor.Dense, error) { return ew.Mvlgamma(a, 2) }), 2.5, 0, math.Log(math.Pi)/2 + lgamma(2.5) + lgamma(2)},
		{"Ndtr", un(ew.Ndtr), 0.3, 0, ndtr(0.3)},
		{"Ndtri", un(ew.Ndtri), ndtr(0.3), 0, 0.3},
		{"Deg2rad", un(ew.Deg2rad), 180, 0, math.Pi},
		{"Rad2deg", un(ew.Rad2deg), math.Pi, 0, 180},
		{"Sinc", un(ew.Sinc), 0.5, 0, 2 / math.Pi},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := tc.f(tensor.Scalar(tc.a), tensor.Scalar(tc.b))
			require.NoError(t, err)
			got := y.Float64s()[0]
			require.InDelta(t, tc.want, got, 4e-16*math.Max(1, math.Abs(tc.want)), "%s(%v, %v)", tc.name, tc.a, tc.b)
		})
	}
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

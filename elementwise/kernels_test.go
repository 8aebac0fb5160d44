package elementwise

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ulps returns |a - b| in units in the last place of b.
func ulps(a, b float64) float64 {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// bigExp returns e^x to 200 bits: e^x = (e^(x/2^16))^(2^16), the inner one by its
// Taylor series.
func bigExp(x float64) *big.Float {
	const prec = 240
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -16)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 30; n++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
	}
	for range 16 {
		sum.Mul(sum, sum)
	}
	return sum
}

func TestFastKernelsAgreeWithMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 0.625, -0.625, 22, -22,
		-708.3, 709.4, -708.4, 709.8, -745.2, 710, 800, -800, math.Inf(1), math.Inf(-1), math.NaN(), math.Ln2 / 128}
	for _, x := range special {
		assert.LessOrEqual(t, ulps(fastExp(x), math.Exp(x)), 1.0, "exp(%v)", x)
		assert.LessOrEqual(t, ulps(fastTanh(x), math.Tanh(x)), 1.0, "tanh(%v)", x)
	}
	missFast, missMath := 0, 0
	for range 3000 {
		x := (rng.Float64()*2 - 1) * math.Pow(10, rng.Float64()*5-3) * 7
		want, _ := bigExp(x).Float64()
		assert.LessOrEqual(t, ulps(fastExp(x), want), 1.0, "exp(%v)", x)
		if fastExp(x) != want {
			missFast++
		}
		if math.Exp(x) != want {
			missMath++
		}
		e2 := bigExp(2 * x)
		num := new(big.Float).Sub(e2, big.NewFloat(1))
		den := new(big.Float).Add(e2, big.NewFloat(1))
		th, _ := num.Quo(num, den).Float64()
		assert.LessOrEqual(t, ulps(fastTanh(x), th), 2.0, "tanh(%v)", x)
	}
	// Faithful rounding everywhere, and correctly rounded at least as often as math.Exp.
	assert.LessOrEqual(t, missFast, missMath, "results not correctly rounded")
	t.Logf("not correctly rounded: fastExp %d, math.Exp %d of 3000", missFast, missMath)
}

// TestSlicesMatchScalarKernels checks every row with a slice kernel against its
// scalar f, bit for bit, at every length up to 40 (vector blocks and tails) and on a
// long input with the special values; and that tanh keeps the sign of zero.
func TestSlicesMatchScalarKernels(t *testing.T) {
	special := []float64{math.Copysign(0, -1), -800, -745.2, -708.4, -22, -21.9, -3, -0.625, -1e-20, 0,
		0.5, 0.625, 7.25, 20, 20.5, 22, 709.75, 709.8, 800, math.NaN(), math.Inf(-1), math.Inf(1)}
	rng := rand.New(rand.NewPCG(9, 9))
	long := append([]float64(nil), special...)
	for range 3000 {
		long = append(long, rng.NormFloat64()*5)
	}
	inputs := [][]float64{long}
	for n := range 41 {
		x := make([]float64, n)
		for i := range x {
			x[i] = special[rng.IntN(len(special))]
			if rng.IntN(2) == 0 {
				x[i] = rng.NormFloat64() * 10
			}
		}
		inputs = append(inputs, x)
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	specs := map[string]UnarySpec{"exp": specOf(ExpOp), "tanh": specOf(TanhOp), "sigmoid": specOf(SigmoidOp), "silu": specOf(SiluOp),
		"logsigmoid": specOf(LogSigmoidOp), "softplus": softplusSpec(1, 20), "softplus(2.5, 3)": softplusSpec(2.5, 3), "relu": specOf(ReluOp)}
	for name, spec := range specs {
		fn := spec.Real
		for _, x := range inputs {
			dst := make([]float64, len(x))
			fn.Slice(dst, x)
			for i, v := range x {
				if !same(dst[i], fn.F(v)) {
					t.Errorf("%s(%v) n=%d: slice %v, scalar %v", name, v, len(x), dst[i], fn.F(v))
				}
			}
			if fn.Pull == nil {
				continue
			}
			// The pullback's fast path against D1(x, y) ybar, with special cotangents.
			y, yb, got := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
			for i, v := range x {
				y[i], yb[i] = fn.F(v), special[(i*7)%len(special)]
			}
			fn.Pull(got, x, y, yb)
			for i, v := range x {
				if want := fn.D1(v, y[i]) * yb[i]; !same(got[i], want) {
					t.Errorf("%s' at %v, cotangent %v: fast pullback %v, generic %v", name, v, yb[i], got[i], want)
				}
			}
		}
	}
	dst := make([]float64, len(long))
	tanhSlice(dst, long)
	for i, v := range long {
		assert.True(t, math.IsNaN(v) || math.Signbit(v) == math.Signbit(dst[i]), "tanh(%v) = %v: tanh keeps the sign, also of zero", v, dst[i])
	}
}

// FuzzFastKernels checks fastExp and fastTanh against package math at any float64
// (and exp against the 240-bit reference where math.Exp overflows early): both are
// within an ulp of the true value, so they differ from math's by at most 2.
func FuzzFastKernels(f *testing.F) {
	for _, x := range []float64{0, -1, 0.625, 22, -708.3, 709.7, 709.78, -745, 1e-310} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		want := math.Exp(x)
		if x > 709.4 && x < 709.79 {
			want, _ = bigExp(x).Float64() // math.Exp overflows from 709.437 on amd64
		}
		if d := ulps(fastExp(x), want); d > 2 && want > 0x1p-1022 {
			t.Errorf("exp(%v) = %v, want %v (%v ulps)", x, fastExp(x), want, d)
		}
		if d := ulps(fastTanh(x), math.Tanh(x)); d > 2 {
			t.Errorf("tanh(%v) = %v, math.Tanh %v (%v ulps)", x, fastTanh(x), math.Tanh(x), d)
		}
	})
}

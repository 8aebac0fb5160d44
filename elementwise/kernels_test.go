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
		expMin, expMax, -708.4, 709.8, -745.2, 710, 800, -800, math.Inf(1), math.Inf(-1), math.NaN(), math.Ln2 / 128}
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

// TestSlicesMatchScalarKernels checks the written-out loops of expSlice and tanhSlice
// against fastExp and fastTanh, including the fallback ranges.
func TestSlicesMatchScalarKernels(t *testing.T) {
	x := []float64{math.Copysign(0, -1), -800, -708.4, expMin, -22, -21.9, -3, -0.625, -0.6, -1e-20, 0, 0.5, 0.625, 0.7, 7.25, 22, expMax, 709.75, 800, math.NaN(), math.Inf(-1)}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 1000 {
		x = append(x, rng.NormFloat64()*5)
	}
	dst := make([]float64, len(x))
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	expSlice(dst, x)
	for i, v := range x {
		assert.True(t, same(dst[i], fastExp(v)), "exp(%v): %v, want %v", v, dst[i], fastExp(v))
	}
	tanhSlice(dst, x)
	for i, v := range x {
		assert.True(t, same(dst[i], fastTanh(v)), "tanh(%v): %v, want %v", v, dst[i], fastTanh(v))
		assert.Equal(t, math.Signbit(v), math.Signbit(dst[i]), "tanh(%v) = %v: tanh keeps the sign, also of zero", v, dst[i])
	}
}

// FuzzFastKernels checks fastExp and fastTanh against package math at any float64:
// both are within an ulp of the true value, so they differ from math's by at most 2.
func FuzzFastKernels(f *testing.F) {
	for _, x := range []float64{0, -1, 0.625, 22, expMin, expMax, -745, 1e-310} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if d := ulps(fastExp(x), math.Exp(x)); d > 2 && math.Exp(x) > 0x1p-1022 {
			t.Errorf("exp(%v) = %v, math.Exp %v (%v ulps)", x, fastExp(x), math.Exp(x), d)
		}
		if d := ulps(fastTanh(x), math.Tanh(x)); d > 2 {
			t.Errorf("tanh(%v) = %v, math.Tanh %v (%v ulps)", x, fastTanh(x), math.Tanh(x), d)
		}
	})
}

package vmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forEachImpl runs f once per implementation available on this machine (assembly
// ones first, then pure Go), with impl switched to it.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	saved := impl
	defer func() { impl = saved }()
	for _, k := range available() {
		impl = k
		t.Run(k.name, f)
	}
}

// ulps returns |a - b| in units of the spacing of doubles at b (the subnormal
// spacing 2^-1074 below 2^-1022).
func ulps(a, b float64) float64 {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return 0
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return math.Inf(1)
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// same reports whether a and b are the same double (any NaN matches any NaN).
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// kernelSpecials are the values drawSpecials mixes into its inputs: signed zeros, ±1,
// infinities, a NaN, a subnormal and a large value.
var kernelSpecials = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310, 1e300}

// drawSpecials returns n values uniform in [-2, 2), with (if special) one in eight
// replaced by one of kernelSpecials, drawn from rng.
func drawSpecials(rng *rand.Rand, n int, special bool) []float64 {
	x := make([]float64, n)
	for i := range x {
		if special && rng.IntN(8) == 0 {
			x[i] = kernelSpecials[rng.IntN(len(kernelSpecials))]
		} else {
			x[i] = 4*rng.Float64() - 2
		}
	}
	return x
}

// bigExp returns e^x to 240 bits: (e^(x/2^16))^(2^16), the inner one by its Taylor
// series.
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

// exactUlps returns |got - exact| in units of the spacing of doubles at got's
// rounded exact value: the true error, not the distance to the rounded result.
func exactUlps(got float64, exact *big.Float) float64 {
	w, _ := exact.Float64()
	sp := math.Nextafter(math.Abs(w), math.Inf(1)) - math.Abs(w)
	d := new(big.Float).SetPrec(exact.Prec()).SetFloat64(got)
	d.Sub(d, exact).Abs(d)
	e, _ := d.Float64()
	return e / sp
}

// refExp is e^x correctly rounded (also to a subnormal).
func refExp(x float64) float64 {
	v, _ := bigExp(x).Float64()
	return v
}

// bigTanh is tanh x = (e^2x - 1)/(e^2x + 1) to 240 bits; below 1e-9 its series
// x - x³/3 + 2x⁵/15 (the next term is below 2^-300 relative).
func bigTanh(x float64) *big.Float {
	if math.Abs(x) < 1e-9 {
		b := new(big.Float).SetPrec(240).SetFloat64(x)
		x2 := new(big.Float).SetPrec(240).Mul(b, b)
		t := new(big.Float).SetPrec(240).Mul(x2, big.NewFloat(2.0/15))
		t.Sub(t, new(big.Float).SetPrec(240).Quo(big.NewFloat(1), big.NewFloat(3)))
		t.Mul(t, x2)
		t.Add(t, big.NewFloat(1))
		return t.Mul(t, b)
	}
	e2 := bigExp(2 * x)
	num := new(big.Float).Sub(e2, big.NewFloat(1))
	den := new(big.Float).Add(e2, big.NewFloat(1))
	return num.Quo(num, den)
}

// testInputs returns n random inputs spread over the magnitudes that matter.
func testInputs(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch i % 4 {
		case 0: // the whole range of exp
			x[i] = -746 + rng.Float64()*(709.8+746)
		case 1: // typical activations
			x[i] = rng.NormFloat64() * 4
		case 2: // small magnitudes down to 1e-12
			x[i] = (rng.Float64()*2 - 1) * math.Pow(10, -12*rng.Float64())
		default: // the subnormal range of the result
			x[i] = -745.14 + rng.Float64()*(745.14-708.3)
		}
	}
	return x
}

var specials = []float64{0, math.Copysign(0, -1), 1, -1, math.Ln2 / 32, -math.Ln2 / 32, math.Ln2 / 16,
	1e-300, -1e-300, 5e-324, 22, -22, 44, 36.7, 708.3, -708.3, -708.4, 709.7, 709.78, 709.782712893384,
	709.79, 710, 800, 1e300, -745, -745.13, -745.1332191019412, -745.14, -746, -800, -1e300,
	math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}

func TestConstLayout(t *testing.T) {
	// kernels_amd64.s addresses the slots and the table by byte offset: K_TAB = 672.
	require.Equal(t, 21, nSlots)
	require.Equal(t, 1.0, tab[0])
	require.InDelta(t, math.Sqrt2, tab[8], 1e-16)
	require.Less(t, math.Abs(tab[16+8]), 1e-16)
}

func TestExpAccuracy(t *testing.T) {
	x := append(testInputs(rand.New(rand.NewPCG(1, 2)), 4000), specials...)
	want := make([]float64, len(x))
	exact := make([]*big.Float, len(x))
	for i, v := range x {
		switch {
		case math.IsNaN(v):
			want[i] = v
		case v > 710:
			want[i] = math.Inf(1)
		case v < -746:
			want[i] = 0
		default:
			exact[i] = bigExp(v)
			want[i], _ = exact[i].Float64()
		}
	}
	forEachImpl(t, func(t *testing.T) {
		got := make([]float64, len(x))
		Exp(got, x)
		worst, miss := 0.0, 0
		for i, v := range x {
			d := ulps(got[i], want[i])
			if want[i] >= 0x1p-1022 && !math.IsInf(want[i], 0) {
				e := exactUlps(got[i], exact[i])
				worst = max(worst, e)
				assert.Less(t, e, 0.6, "exp(%v) = %v, want %v", v, got[i], want[i])
			} else {
				// subnormal results: the product v 2^m is rounded once, v already
				// rounded, so within one subnormal step.
				assert.LessOrEqual(t, d, 1.0, "exp(%v) = %v, want %v (subnormal)", v, got[i], want[i])
			}
			if !same(got[i], want[i]) {
				miss++
			}
			assert.True(t, same(got[i], Exp1(v)), "exp(%v): vector %v, scalar %v", v, got[i], Exp1(v))
		}
		t.Logf("max error %.3f ulp; %d of %d not correctly rounded", worst, miss, len(x))
	})
}

func TestExpSpecialValues(t *testing.T) {
	cases := []struct{ x, want float64 }{
		{0, 1}, {math.Copysign(0, -1), 1}, {math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0},
		{709.78, refExp(709.78)}, {709.79, math.Inf(1)}, {1e300, math.Inf(1)},
		{-745.13, 5e-324}, {-745.14, 0}, {-1e300, 0}, {math.NaN(), math.NaN()},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 8, 9} { // scalar, vector block, block + tail
			for _, c := range cases {
				x := make([]float64, n)
				for i := range x {
					x[i] = c.x
				}
				y := make([]float64, n)
				Exp(y, x)
				for i := range y {
					assert.True(t, same(y[i], c.want), "exp(%v) = %v, want %v", c.x, y[i], c.want)
				}
			}
		}
	})
}

func TestTanhAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 0, 3000)
	for range 1000 {
		x = append(x, rng.NormFloat64()*3, (rng.Float64()*2-1)*math.Pow(10, -15*rng.Float64()), (rng.Float64()*2-1)*25)
	}
	x = append(x, specials...)
	forEachImpl(t, func(t *testing.T) {
		got := make([]float64, len(x))
		Tanh(got, x)
		worst := 0.0
		for i, v := range x {
			want := math.Tanh(v)
			d := ulps(got[i], want)
			if !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v) < 40 && v != 0 {
				exact := bigTanh(v)
				want, _ = exact.Float64()
				d = exactUlps(got[i], exact)
			}
			worst = max(worst, d)
			assert.Less(t, d, 2.0, "tanh(%v) = %v, want %v", v, got[i], want)
			assert.True(t, math.IsNaN(v) || math.Signbit(got[i]) == math.Signbit(v), "tanh(%v) = %v: sign", v, got[i])
			assert.True(t, same(got[i], Tanh1(v)), "tanh(%v): vector %v, scalar %v", v, got[i], Tanh1(v))
		}
		t.Logf("max error %.3f ulp", worst)
	})
}

// TestKernelsMatchScalar checks that every kernel of every implementation gives
// exactly the scalar kernels' results, at every length up to 40 (blocks and tails).
func TestKernelsMatchScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= 40; n++ {
			x := testInputs(rng, n)
			m := testInputs(rng, n)
			c := make([]float64, n)
			for i := range c {
				c[i] = rng.NormFloat64()
				if i < len(specials) && rng.IntN(3) == 0 {
					x[i] = specials[rng.IntN(len(specials))]
				}
			}
			ms, cs := rng.NormFloat64()*10, rng.Float64()
			y := make([]float64, n)
			check := func(what string, want func(i int) float64) {
				t.Helper()
				for i := range y {
					if w := want(i); !same(y[i], w) {
						t.Errorf("%s n=%d [%d] x=%v: got %v, want %v", what, n, i, x[i], y[i], w)
					}
				}
			}
			Exp(y, x)
			check("exp", func(i int) float64 { return Exp1(x[i]) })
			ExpSubScale(y, x, ms, cs)
			check("expsubscale", func(i int) float64 { return Exp1(x[i]-ms) * cs })
			ExpSubScaleVec(y, x, m, c)
			check("expsubscalevec", func(i int) float64 { return Exp1(x[i]-m[i]) * c[i] })
			copy(y, c)
			AddExpSub(y, x, m)
			check("addexpsub", func(i int) float64 { return c[i] + Exp1(x[i]-m[i]) })
			Tanh(y, x)
			check("tanh", func(i int) float64 { return Tanh1(x[i]) })

			var s [8]float64
			for i, v := range x {
				s[i%8] += Exp1(v - ms)
			}
			want := ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
			assert.True(t, same(SumExpSub(x, ms), want), "sumexp n=%d: %v, want %v", n, SumExpSub(x, ms), want)
		}
	})
}

func TestMaxMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	negZero := math.Copysign(0, -1)
	naive := func(x []float64, isMin bool) float64 {
		m := x[0]
		for _, v := range x[1:] {
			m = pick(m, v, isMin)
		}
		return m
	}
	forEachImpl(t, func(t *testing.T) {
		for n := 1; n <= 80; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			variants := [][]float64{x}
			// A NaN, an infinity, and signed zeros at each position (zeros as the
			// extreme: all other elements have the other sign).
			for _, p := range []int{0, n / 3, n - 1} {
				for _, special := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
					v := append([]float64(nil), x...)
					v[p] = special
					variants = append(variants, v)
				}
				for _, sign := range []float64{1, -1} {
					v := make([]float64, n)
					for i := range v {
						v[i] = sign * (1 + rng.Float64())
						if rng.IntN(2) == 0 {
							v[i] = math.Copysign(0, float64(rng.IntN(2)*2-1))
						}
					}
					v[p] = 0
					if p > 0 {
						v[0] = negZero
					}
					variants = append(variants, v)
				}
			}
			for _, v := range variants {
				for _, isMin := range []bool{false, true} {
					got, want := Max(v), naive(v, false)
					if isMin {
						got, want = Min(v), naive(v, true)
					}
					assert.True(t, same(got, want), "min=%v n=%d %v: got %v, want %v", isMin, n, v, got, want)
				}
			}
			// Into: acc and x elementwise, with NaN and signed zeros on either side.
			acc := make([]float64, n)
			for i := range acc {
				acc[i] = rng.NormFloat64()
				switch rng.IntN(6) {
				case 0:
					acc[i], x[i] = math.NaN(), 1
				case 1:
					acc[i], x[i] = 1, math.NaN()
				case 2:
					acc[i], x[i] = negZero, 0
				case 3:
					acc[i], x[i] = 0, negZero
				}
			}
			for _, isMin := range []bool{false, true} {
				got := append([]float64(nil), acc...)
				if isMin {
					MinInto(got, x)
				} else {
					MaxInto(got, x)
				}
				for i := range got {
					want := pick(acc[i], x[i], isMin)
					assert.True(t, same(got[i], want), "into min=%v n=%d [%d] (%v, %v): got %v, want %v", isMin, n, i, acc[i], x[i], got[i], want)
				}
			}
		}
	})
}

// FuzzKernels compares exp and tanh of every implementation with package math (each
// within an ulp of the truth, so within 2 of each other), and max/min with Go's
// built-ins, on a block of 8 plus a tail element.
func FuzzKernels(f *testing.F) {
	for _, x := range []float64{0, -1, 0.625, 22, -708.4, 709.7, -745, 1e-310} {
		f.Add(x, 1.0)
	}
	f.Fuzz(func(t *testing.T, x, z float64) {
		saved := impl
		defer func() { impl = saved }()
		xs := []float64{x, z, x, x, z, x, x, x, x}
		y := make([]float64, len(xs))
		for _, k := range available() {
			impl = k
			Exp(y, xs)
			for i, v := range xs {
				want := math.Exp(v)
				switch {
				case v > 709.79:
					want = math.Inf(1)
				case v > 700 || (want < 0x1p-1022 && want > 0):
					// math.Exp overflows early on amd64; subnormal results are
					// within one subnormal step of each other's.
					want = refExp(v)
				}
				if d := ulps(y[i], want); d > 2 || (want < 0x1p-1022 && d > 1) {
					t.Errorf("%s: exp(%v) = %v, want %v (%v ulps)", k.name, v, y[i], want, d)
				}
			}
			Tanh(y, xs)
			for i, v := range xs {
				if d := ulps(y[i], math.Tanh(v)); d > 2 {
					t.Errorf("%s: tanh(%v) = %v, math.Tanh %v (%v ulps)", k.name, v, y[i], math.Tanh(v), d)
				}
			}
			if got, want := Max(xs), max(x, z); !same(got, want) {
				t.Errorf("%s: max(%v, %v) = %v, want %v", k.name, x, z, got, want)
			}
			if got, want := Min(xs), min(x, z); !same(got, want) {
				t.Errorf("%s: min(%v, %v) = %v, want %v", k.name, x, z, got, want)
			}
		}
	})
}

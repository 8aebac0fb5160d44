package vmath

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/chainrules-go/chainrules/internal/race"
)

// forEachImpl32 runs f once per float32 implementation available on this machine,
// with impl32 switched to it.
func forEachImpl32(t *testing.T, f func(t *testing.T)) {
	saved := impl32
	defer func() { impl32 = saved }()
	for _, k := range available32() {
		impl32 = k
		t.Run(k.name, f)
	}
}

// ulps32 returns the distance of a from want in float32 steps: the number of
// float32 values between them in the order of the reals (±0 the same, ±Inf one step
// past ±MaxFloat32); 0 for two NaNs and a large number for a NaN against a number.
func ulps32(a, want float32) int64 {
	if a != a || want != want {
		if a != a && want != want {
			return 0
		}
		return 1 << 40
	}
	ord := func(v float32) int64 {
		b := int64(math.Float32bits(v) &^ (1 << 31))
		if math.Signbit(float64(v)) {
			return -b
		}
		return b
	}
	d := ord(a) - ord(want)
	if d < 0 {
		d = -d
	}
	return d
}

// specials32 are the special values and the edges of the kernels' ranges.
var specials32 = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
	88.72283, 88.72284, 88.7229, 89, 89.5, -87.33654, -87.3366, -103.97208, -103.9721, -103.99, -104, -105,
	1e-8, -1e-8, 0.17, 0.35, 0.3466, 8.9, 9, 10, 20, 44, -44}

// sweep32 calls f with chunks of every step-th float32 bit pattern (both signs,
// NaNs, infinities, subnormals and zeros among them), after the special values.
func sweep32(step uint64, f func(xs []float32)) {
	f(specials32)
	xs := make([]float32, 0, 1<<16)
	for b := uint64(0); b < 1<<32; b += step {
		xs = append(xs, math.Float32frombits(uint32(b)))
		if len(xs) == cap(xs) {
			f(xs)
			xs = xs[:0]
		}
	}
	f(xs)
}

// TestSingleAccuracy checks Exp32 and Tanh32 against the double-precision results
// of package math rounded to float32, over a sweep of the float32 range (every 61st
// bit pattern): within 2 float32 steps everywhere, with the same NaNs, infinities,
// zeros and signs.
func TestSingleAccuracy(t *testing.T) {
	step := uint64(61)
	if testing.Short() || race.Enabled {
		step = 997 // the race run checks concurrency; the full sweep runs without it
	}
	for _, c := range []struct {
		name string
		f    func(dst, x []float32)
		ref  func(float64) float64
	}{
		{"exp", Exp32, math.Exp},
		{"tanh", Tanh32, math.Tanh},
		{"sigmoid", Sigmoid32, func(x float64) float64 {
			if x < 0 {
				t := math.Exp(x)
				return t / (1 + t)
			}
			return 1 / (1 + math.Exp(-x))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachImpl32(t, func(t *testing.T) {
				got := make([]float32, 1<<16)
				var worst, count int64
				var at float32
				sweep32(step, func(xs []float32) {
					c.f(got[:len(xs)], xs)
					for i, x := range xs {
						want := float32(c.ref(float64(x)))
						d := ulps32(got[i], want)
						if d > worst {
							worst, at = d, x
						}
						if (want == 0 || want > math.MaxFloat32 || want < -math.MaxFloat32) && math.Float32bits(want) != math.Float32bits(got[i]) {
							// Zeros, signed, and infinities exactly.
							t.Fatalf("%s(%g) = %g, want %g", c.name, x, got[i], want)
						}
					}
					count += int64(len(xs))
				})
				t.Logf("%s, %s: %d inputs, max error %d ulp at %g", c.name, impl32.name, count, worst, at)
				assert.LessOrEqual(t, worst, int64(2), "%s(%g)", c.name, at)
			})
		})
	}
}

// TestSingleTails: every length from 0 to 40 and offsets into the slices, so that
// the vector blocks and the double-precision tails meet everywhere; the output is
// written exactly up to len(dst).
func TestSingleTails(t *testing.T) {
	forEachImpl32(t, func(t *testing.T) {
		x := make([]float32, 48)
		for i := range x {
			x[i] = float32(i)*0.37 - 9
		}
		for n := 0; n <= 40; n++ {
			for off := 0; off < 3; off++ {
				dst := make([]float32, n+1)
				dst[n] = -7
				Exp32(dst[:n], x[off:])
				for i := range n {
					assert.LessOrEqual(t, ulps32(dst[i], float32(math.Exp(float64(x[off+i])))), int64(2))
				}
				assert.Equal(t, float32(-7), dst[n])
				Tanh32(dst[:n], x[off:])
				for i := range n {
					assert.LessOrEqual(t, ulps32(dst[i], float32(math.Tanh(float64(x[off+i])))), int64(2))
				}
				assert.Equal(t, float32(-7), dst[n])
				Sigmoid32(dst[:n], x[off:])
				for i := range n {
					assert.LessOrEqual(t, ulps32(dst[i], float32(1/(1+math.Exp(-float64(x[off+i]))))), int64(2))
				}
				assert.Equal(t, float32(-7), dst[n])
			}
		}
	})
}

func BenchmarkSingle(b *testing.B) {
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = float32(i%2000)/100 - 10
	}
	dst := make([]float32, len(x))
	saved := impl32
	defer func() { impl32 = saved }()
	for _, k := range available32() {
		impl32 = k
		b.Run("exp/"+k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				Exp32(dst, x)
			}
		})
		b.Run("tanh/"+k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				Tanh32(dst, x)
			}
		})
		b.Run("sigmoid/"+k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				Sigmoid32(dst, x)
			}
		})
	}
}

// TestTanh32Dense checks Tanh32 on every float32 in [2^-12, 9.1], the range where
// tanh x rounds neither to x nor to 1 (every 101st in -short mode), against
// math.Tanh rounded to float32: within 2 float32 steps, the bound of its doc
// comment, and the same on the negative side.
func TestTanh32Dense(t *testing.T) {
	step := uint32(1)
	if testing.Short() || race.Enabled {
		// Every 101st float32 still covers each binade; the race detector
		// slows the sweep a hundredfold and finds nothing in this serial loop.
		step = 101
	}
	lo, hi := math.Float32bits(0x1p-12), math.Float32bits(9.1)
	forEachImpl32(t, func(t *testing.T) {
		xs := make([]float32, 0, 1<<16)
		got := make([]float32, 1<<16)
		var worst int64
		var at float32
		check := func() {
			Tanh32(got[:len(xs)], xs)
			for i, x := range xs {
				if d := ulps32(got[i], float32(math.Tanh(float64(x)))); d > worst {
					worst, at = d, x
				}
			}
			xs = xs[:0]
		}
		for b := lo; b <= hi; b += step {
			x := math.Float32frombits(b)
			xs = append(xs, x, -x)
			if len(xs) == cap(xs) {
				check()
			}
		}
		check()
		t.Logf("tanh, %s: max error %d ulp at %g", impl32.name, worst, at)
		assert.LessOrEqual(t, worst, int64(2), "tanh(%g)", at)
	})
}

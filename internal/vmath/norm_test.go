package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The normalisation kernels against their scalar definitions written out in the
// test, bit for bit, at lengths around the blocks of the assembly, with special
// values among the inputs.
func TestNormKernelsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	specials := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.NaN(), 1e-310, 1e300}
	draw := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			if rng.IntN(16) == 0 {
				x[i] = specials[rng.IntN(len(specials))]
			} else {
				x[i] = 4*rng.Float64() - 2
			}
		}
		return x
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	sameSlice := func(what string, n int, a, b []float64) {
		t.Helper()
		for i := range a {
			if !same(a[i], b[i]) {
				t.Fatalf("%s n=%d element %d: %v, want %v", what, n, i, a[i], b[i])
			}
		}
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 768, 1003} {
		x, g, w, b := draw(n), draw(n), draw(n), draw(n)
		mu, rs, mg, mgx := 0.3, 1.7, -0.2, 0.45

		var s [32]float64
		for i, v := range x {
			d := v - mu
			s[i%16] += d
			s[16+i%16] += d * d
		}
		half := func(s []float64) float64 {
			return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
		}
		sum, sq := SumDev(x, mu)
		if !same(sum, half(s[:8])+half(s[8:16])) || !same(sq, half(s[16:24])+half(s[24:])) {
			t.Fatalf("SumDev n=%d: %v %v", n, sum, sq)
		}

		y, want := make([]float64, n), make([]float64, n)
		NormApply(y, x, w, b, mu, rs)
		for i := range want {
			want[i] = (x[i]-mu)*rs*w[i] + b[i]
		}
		sameSlice("NormApply", n, y, want)

		wa, ba, wantWa, wantBa := draw(n), draw(n), make([]float64, n), make([]float64, n)
		copy(wantWa, wa)
		copy(wantBa, ba)
		var p [16]float64
		for i := range x {
			h := (x[i] - mu) * rs
			wantWa[i] += g[i] * h
			wantBa[i] += g[i]
			gw := g[i] * w[i]
			p[i%8] += gw
			p[8+i%8] += gw * h
		}
		sg, sgx := NormPullSums(x, g, w, wa, ba, mu, rs)
		if !same(sg, half(p[:8])) || !same(sgx, half(p[8:])) {
			t.Fatalf("NormPullSums n=%d: %v %v, want %v %v", n, sg, sgx, half(p[:8]), half(p[8:]))
		}
		sameSlice("NormPullSums wa", n, wa, wantWa)
		sameSlice("NormPullSums ba", n, ba, wantBa)

		NormPullBar(y, x, g, w, mu, rs, mg, mgx)
		for i := range want {
			want[i] = rs * (w[i]*g[i] - mg - (x[i]-mu)*rs*mgx)
		}
		sameSlice("NormPullBar", n, y, want)
	}
}

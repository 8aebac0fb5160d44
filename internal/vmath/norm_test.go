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

// The float32 normalisation kernels and Dot32 against their scalar definitions
// written out in the test, bit for bit, as TestNormKernelsBitIdentical.
func TestNormKernels32BitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.NaN()), 1e-40, 1e30}
	draw := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			if rng.IntN(16) == 0 {
				x[i] = specials[rng.IntN(len(specials))]
			} else {
				x[i] = float32(4*rng.Float64() - 2)
			}
		}
		return x
	}
	same32 := func(what string, n int, a, b []float32) {
		t.Helper()
		for i := range a {
			if !same(float64(a[i]), float64(b[i])) {
				t.Fatalf("%s n=%d element %d: %v, want %v", what, n, i, a[i], b[i])
			}
		}
	}
	half := func(s []float64) float64 {
		return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 768, 1003} {
		x, g, w, b := draw(n), draw(n), draw(n), draw(n)
		var mu, rs, mg, mgx float32 = 0.3, 1.7, -0.2, 0.45

		var s [32]float64
		for i, v := range x {
			d := float64(v) - 0.3
			s[i%16] += d
			s[16+i%16] += d * d
		}
		sum, sq := SumDev32(x, 0.3)
		if !same(sum, half(s[:8])+half(s[8:16])) || !same(sq, half(s[16:24])+half(s[24:])) {
			t.Fatalf("SumDev32 n=%d: %v %v", n, sum, sq)
		}

		y, want := make([]float32, n), make([]float32, n)
		NormApply32(y, x, w, b, mu, rs)
		for i := range want {
			want[i] = (x[i]-mu)*rs*w[i] + b[i]
		}
		same32("NormApply32", n, y, want)

		wa, ba := make([]float64, n), make([]float64, n)
		wantWa, wantBa := make([]float64, n), make([]float64, n)
		for i := range wa {
			wa[i], ba[i] = rng.Float64(), rng.Float64()
		}
		copy(wantWa, wa)
		copy(wantBa, ba)
		var p [16]float64
		for i := range x {
			h := (x[i] - mu) * rs
			wantWa[i] += float64(g[i] * h)
			wantBa[i] += float64(g[i])
			gw := g[i] * w[i]
			p[i%8] += float64(gw)
			p[8+i%8] += float64(gw * h)
		}
		sg, sgx := NormPullSums32(x, g, w, wa, ba, mu, rs)
		if !same(sg, half(p[:8])) || !same(sgx, half(p[8:])) {
			t.Fatalf("NormPullSums32 n=%d: %v %v, want %v %v", n, sg, sgx, half(p[:8]), half(p[8:]))
		}
		for i := range wa {
			if !same(wa[i], wantWa[i]) || !same(ba[i], wantBa[i]) {
				t.Fatalf("NormPullSums32 n=%d element %d: wa %v ba %v, want %v %v", n, i, wa[i], ba[i], wantWa[i], wantBa[i])
			}
		}

		NormPullBar32(y, x, g, w, mu, rs, mg, mgx)
		for i := range want {
			want[i] = rs * (w[i]*g[i] - mg - (x[i]-mu)*rs*mgx)
		}
		same32("NormPullBar32", n, y, want)

		if n > 0 {
			var m [16]float32
			for k := range m {
				m[k] = x[0]
			}
			for i, v := range x {
				if !(m[i%16] > v) {
					m[i%16] = v
				}
			}
			want := m[0]
			for _, v := range m[1:] {
				if !(want > v) {
					want = v
				}
			}
			if got := Max32(x); !same(float64(got), float64(want)) {
				t.Fatalf("Max32 n=%d: %v, want %v", n, got, want)
			}
		}

		var d [8]float64
		for i := range x {
			d[i%8] += float64(x[i] * g[i])
		}
		if got := Dot32(x, g); !same(got, half(d[:])) {
			t.Fatalf("Dot32 n=%d: %v, want %v", n, got, half(d[:]))
		}
	}
}

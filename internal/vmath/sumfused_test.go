package vmath

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// MulSum and ScaleSum against Mul and Scale followed by Sum, bit for bit (the
// products and their sum), at lengths around the 8-element blocks, with special
// values among the inputs, in place, and through the Go loops alone (the
// assembly switched off) as on other platforms.
func TestSumFusedBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	draw := func(n int, special bool) []float64 { return drawSpecials(rng, n, special) }
	check := func(what string, n int, got, want []float64, gs, ws float64) {
		t.Helper()
		for i := range want {
			if !same(got[i], want[i]) {
				t.Fatalf("%s n=%d [%d]: got %v, want %v", what, n, i, got[i], want[i])
			}
		}
		if !same(gs, ws) {
			t.Fatalf("%s n=%d: sum %v, want %v (Sum of the products)", what, n, gs, ws)
		}
	}
	saved := fusedAVX2
	defer func() { fusedAVX2 = saved }()
	for _, asm := range []bool{saved, false} {
		fusedAVX2 = asm
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 1003, 4099} {
			for _, special := range []bool{false, true} {
				a, b := draw(n, special), draw(n, special)
				want := make([]float64, n)
				Mul(want, a, b)
				got := make([]float64, n)
				check("MulSum", n, got, want, MulSum(got, a, b), Sum(want))
				in := slices.Clone(a)
				check("MulSum in place", n, in, want, MulSum(in, in, b), Sum(want))
				for _, c := range []float64{-2.5, 1e-300, 1 / 3.0, 0} {
					Scale(want, a, c)
					check("ScaleSum", n, got, want, ScaleSum(got, a, c), Sum(want))
					in := slices.Clone(a)
					check("ScaleSum in place", n, in, want, ScaleSum(in, in, c), Sum(want))
				}
			}
		}
	}
}

// BenchmarkScaleSum compares ScaleSum with Scale then Sum (the two passes it
// replaces) at n = 2500 (in cache) and 1 280 000 (lse's sizes).
func BenchmarkScaleSum(b *testing.B) {
	for _, n := range []int{2500, 1280000} {
		x, dst := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(i%7) - 3
		}
		b.Run(fmt.Sprintf("fused/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				ScaleSum(dst, x, 0.5)
			}
		})
		b.Run(fmt.Sprintf("two-pass/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				Scale(dst, x, 0.5)
				_ = Sum(dst)
			}
		})
	}
}

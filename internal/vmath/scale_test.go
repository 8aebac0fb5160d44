package vmath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Mul and Scale against their scalar definitions, bit for bit, at lengths around
// the 8-element blocks of the assembly, with special values among the inputs, and
// in place (dst one of the operands).
func TestScaleBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	specials := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310, 1e300}
	draw := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			if rng.IntN(8) == 0 {
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
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 1003} {
		a, b := draw(n), draw(n)
		for _, c := range []float64{-2.5, 1e-300, math.Inf(1), 0} {
			got := make([]float64, n)
			Scale(got, a, c)
			for i := range got {
				if want := a[i] * c; !same(got[i], want) {
					t.Fatalf("Scale n=%d c=%v [%d]: got %v, want %v", n, c, i, got[i], want)
				}
			}
			in := slices.Clone(a)
			Scale(in, in, c)
			if !slices.EqualFunc(in, got, same) {
				t.Fatalf("Scale n=%d c=%v in place differs", n, c)
			}
		}
		got := make([]float64, n)
		Mul(got, a, b)
		for i := range got {
			if want := a[i] * b[i]; !same(got[i], want) {
				t.Fatalf("Mul n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		in := slices.Clone(b)
		Mul(in, a, in)
		if !slices.EqualFunc(in, got, same) {
			t.Fatalf("Mul n=%d in place differs", n)
		}
	}
}

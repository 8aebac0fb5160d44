package vmath

import (
	"math/rand/v2"
	"testing"
)

// Sums of small integers are exact in any order, so every length (tails included)
// must give the closed form n(n+1)/2, in both element types.
func TestSum(t *testing.T) {
	for n := range 40 {
		x := make([]float64, n)
		z := make([]complex128, n)
		for i := range x {
			x[i] = float64(i + 1)
			z[i] = complex(float64(i+1), -float64(i+1))
		}
		want := float64(n * (n + 1) / 2)
		if got := Sum(x); got != want {
			t.Fatalf("Sum of 1..%d = %v, want %v", n, got, want)
		}
		if got := Sum(z); got != complex(want, -want) {
			t.Fatalf("complex Sum of length %d = %v, want %v", n, got, complex(want, -want))
		}
	}
}

// Sum32 is Sum of the widened input, bit for bit, at lengths around its blocks of 8.
func TestSum32Widened(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 1003} {
		x := make([]float32, n)
		w := make([]float64, n)
		for i := range x {
			x[i] = float32(drawSpecials(rng, 1, true)[0])
			w[i] = float64(x[i])
		}
		if got, want := Sum32(x), Sum(w); !same(got, want) {
			t.Fatalf("n=%d: Sum32 %v, Sum of the widened %v", n, got, want)
		}
	}
}

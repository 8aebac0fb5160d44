package vmath

import "testing"

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

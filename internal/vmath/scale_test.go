package vmath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Mul, Scale, Neg and Axpy against their scalar definitions, bit for bit, at lengths around
// the 8-element blocks of the assembly, with special values among the inputs, and
// in place (dst one of the operands).
func TestScaleBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(n int) []float64 { return drawSpecials(rng, n, true) }
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
		Neg(got, a)
		for i := range got {
			if want := -a[i]; math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("Neg n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		for _, c := range []float64{-2.5, 0, math.Inf(-1)} {
			acc := slices.Clone(b)
			Axpy(acc, c, a)
			for i := range acc {
				if want := b[i] + c*a[i]; !same(acc[i], want) {
					t.Fatalf("Axpy n=%d c=%v [%d]: got %v, want %v", n, c, i, acc[i], want)
				}
			}
		}
		in = slices.Clone(a)
		Neg(in, in)
		if !slices.EqualFunc(in, got, same) {
			t.Fatalf("Neg n=%d in place differs", n)
		}
	}
}

// IndexEq against a loop: the first equal element found at every position
// around the assembly's blocks (with an earlier equal element or not), none,
// NaN never equal, and -0 equal to +0.
func TestIndexEq(t *testing.T) {
	first := func(x []float64, y float64) int {
		for i, v := range x {
			if v == y {
				return i
			}
		}
		return -1
	}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 100} {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i) + 0.5
		}
		if got := IndexEq(x, -1); got != -1 {
			t.Fatalf("n=%d: found %d, want none", n, got)
		}
		for at := range n {
			for _, also := range []int{-1, at + 1, n - 1} {
				y := slices.Clone(x)
				y[at] = 3e9
				if also > at && also < n {
					y[also] = 3e9
				}
				if got, want := IndexEq(y, 3e9), first(y, 3e9); got != want || got != at {
					t.Fatalf("n=%d at=%d also=%d: got %d, want %d", n, at, also, got, want)
				}
			}
		}
		if n > 0 {
			y := slices.Clone(x)
			y[n-1] = math.NaN()
			if got := IndexEq(y, math.NaN()); got != -1 {
				t.Fatalf("n=%d: NaN found at %d", n, got)
			}
			y[n/2] = math.Copysign(0, -1)
			if got := IndexEq(y, 0); got != n/2 {
				t.Fatalf("n=%d: -0 found at %d, want %d", n, got, n/2)
			}
		}
	}
}

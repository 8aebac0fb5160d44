package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/einsum"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func maxRelDiff(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	return num / math.Max(den, 1e-300)
}

// TestVDiagVt compares the float64 fast pullback of eigvalsh with the einsum it
// replaces, for a batch and for sizes around the row block (64).
func TestVDiagVt(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, sh := range [][]int{{2, 5}, {1, 63}, {1, 64}, {1, 65}, {3, 130}} {
		b, n := sh[0], sh[1]
		v := newOf(randSlice(rng, b*n*n), b, n, n)
		g := newOf(randSlice(rng, b*n), b, n)
		got := vDiagVt(v, g).Float64s()
		want, err := einsum.Eval("...ij,...j,...kj->...ik", v, g, v)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(got, want.Float64s()); d > 1e-13 {
			t.Errorf("batch %d, n = %d: V diag(g) V^T differs from einsum by %g", b, n, d)
		}
	}
}

package tensor

import (
	"math/rand/v2"
	"testing"
)

// TestMatrixOverlapExact compares matrixOverlap with the intersection of the two
// matrices' element sets, for random matrices within one array.
func TestMatrixOverlapExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	s := make([]float64, 256)
	for range 20000 {
		rows, cols := 1+rng.IntN(6), 1+rng.IntN(6)
		ldx := cols + rng.IntN(6)
		m, n := 1+rng.IntN(6), 1+rng.IntN(6)
		ldc := n + rng.IntN(6)
		ox, oc := rng.IntN(100), rng.IntN(100)
		in := map[int]bool{}
		for i := range m {
			for j := range n {
				in[oc+i*ldc+j] = true
			}
		}
		want := false
		for i := range rows {
			for j := range cols {
				want = want || in[ox+i*ldx+j]
			}
		}
		if got := matrixOverlap(s[ox:], rows, cols, ldx, s[oc:], m, n, ldc); got != want {
			t.Fatalf("x %d×%d ld %d at %d, c %d×%d ld %d at %d: got %v, want %v", rows, cols, ldx, ox, m, n, ldc, oc, got, want)
		}
	}
}

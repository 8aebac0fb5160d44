package gemm

import (
	"math/rand/v2"
	"testing"
)

// packRows8 (with its assembly part, an 8x8 transpose per 8 k steps) writes
// value p of row r, a[off+r*lda+p], at dst[p*stride+r] and nothing else, for
// float64 and float32, lengths with and without a tail of fewer than 8 steps.
func TestPackRows8(t *testing.T) {
	testPackRows8[float64](t)
	testPackRows8[float32](t)
}

func testPackRows8[R float](t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, kb := range []int{1, 7, 8, 9, 16, 64, 131} {
		for _, stride := range []int{8, 24, 48} {
			const off, lda = 5, 140
			a := make([]R, off+7*lda+kb)
			for i := range a {
				a[i] = R(rng.NormFloat64())
			}
			dst := make([]R, stride*kb)
			const sentinel = -1e30
			for i := range dst {
				dst[i] = sentinel
			}
			packRows8(dst, stride, a, off, lda, kb)
			for p := range kb {
				for r := range stride {
					want := R(sentinel)
					if r < 8 {
						want = a[off+r*lda+p]
					}
					if got := dst[p*stride+r]; got != want {
						t.Fatalf("%T kb=%d stride=%d: dst[%d*%d+%d] = %v, want %v", R(0), kb, stride, p, stride, r, got, want)
					}
				}
			}
		}
	}
}

package linalg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkReduce times the blocked reductions alone: sytrd (tridiagonal) and gebrd
// (bidiagonal) of random n×n matrices.
func BenchmarkReduce(b *testing.B) {
	for _, n := range []int{128, 512, 1024} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		a := randSlice(rng, n*n)
		for i := range n {
			for j := range i {
				a[j*n+i] = a[i*n+j]
			}
		}
		work := make([]float64, n*n)
		d, e, tau, tau2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		b.Run(fmt.Sprintf("sytrd/%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(work, a)
				sytrdLower(work, n, d, e[:n-1], tau[:n-1])
			}
		})
		b.Run(fmt.Sprintf("gebrd/%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(work, a)
				gebrdUpper(work, n, n, n, d, e[:n-1], tau, tau2)
			}
		})
		_ = slices.Clone(a)
	}
}

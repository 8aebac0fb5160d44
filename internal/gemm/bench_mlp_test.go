package gemm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDgemmMLP measures the float64 products of the MLP 784-256-256-10 on a
// batch of 256 (hvp's BenchmarkMLP), whose widths of 256 take the parallel
// driver's shared scheme (runShared): the two layer products, the weight
// gradients X^T G and the input gradient G W^T. Compare GOMAXPROCS=1 and 2 in
// the environment for the two-goroutine speedup (not -cpu 1,2: see
// BenchmarkDgemm).
func BenchmarkDgemmMLP(b *testing.B) {
	cases := []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"XW1/256x256x784", false, false, 256, 256, 784},
		{"HW2/256x256x256", false, false, 256, 256, 256},
		{"XtG1/784x256x256", true, false, 784, 256, 256},
		{"HtG2/256x256x256", true, false, 256, 256, 256},
		{"GW2t/256x256x256", false, true, 256, 256, 256},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randSlice(rng, c.m*c.k), randSlice(rng, c.k*c.n), randSlice(rng, c.m*c.n)
		lda, ldb := c.k, c.n
		if c.transA {
			lda = c.m
		}
		if c.transB {
			ldb = c.k
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Dgemm(c.transA, c.transB, c.m, c.n, c.k, 1, x, lda, y, ldb, 0, z, c.n)
			}
			reportGFLOPs(b, 2*float64(c.m)*float64(c.n)*float64(c.k))
		})
	}
}

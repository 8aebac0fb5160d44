package gemm

import "testing"

// BenchmarkDgemmMLP measures the float64 products of the MLP 784-256-256-10 on a
// batch of 256 (hvp's BenchmarkMLP), whose widths of 256 take the parallel
// driver's shared scheme (runShared): the two layer products, the weight
// gradients X^T G and the input gradient G W^T. Compare GOMAXPROCS=1 and 2 in
// the environment for the two-goroutine speedup (not -cpu 1,2: see
// BenchmarkDgemm).
func BenchmarkDgemmMLP(b *testing.B) {
	cases := []gemmShape{
		{"XW1/256x256x784", false, false, 256, 256, 784},
		{"HW2/256x256x256", false, false, 256, 256, 256},
		{"XtG1/784x256x256", true, false, 784, 256, 256},
		{"HtG2/256x256x256", true, false, 256, 256, 256},
		{"GW2t/256x256x256", false, true, 256, 256, 256},
	}
	benchDgemmShapes(b, cases)
}

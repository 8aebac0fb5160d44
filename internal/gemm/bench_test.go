package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var benchSizes = []int{64, 128, 256, 512, 1024, 2048}

func reportGFLOPs(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDgemm compares Dgemm (default kernel) with gonum's Dgemm on
// square n x n products: GOMAXPROCS=1 (then 2) go test -bench 'Dgemm/512' (not
// -cpu 1,2, whose first entry a b.Loop benchmark times at the GOMAXPROCS left
// from before: golang/go#49980).
func BenchmarkDgemm(b *testing.B) {
	for _, n := range benchSizes {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randSlice(rng, n*n), randSlice(rng, n*n), randSlice(rng, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("%d/gemm", n), func(b *testing.B) {
			b.ReportAllocs()
			if n > 1024 && testing.Short() {
				b.Skip("n > 1024 in -short mode")
			}
			for b.Loop() {
				Dgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, flops)
		})
		b.Run(fmt.Sprintf("%d/gonum", n), func(b *testing.B) {
			b.ReportAllocs()
			if n > 1024 && testing.Short() {
				b.Skip("n > 1024 in -short mode")
			}
			for b.Loop() {
				gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, flops)
		})
	}
}

// BenchmarkDgemmKernel measures every kernel available on this machine, and
// transposed operands with the default kernel.
func BenchmarkDgemmKernel(b *testing.B) {
	for _, n := range []int{256, 1024} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randSlice(rng, n*n), randSlice(rng, n*n), randSlice(rng, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		for _, kn := range kernels() {
			b.Run(fmt.Sprintf("%d/%s", n, kn.name), func(b *testing.B) {
				b.ReportAllocs()
				saved := kern
				defer func() { kern = saved }()
				kern = kn
				for b.Loop() {
					Dgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
				}
				reportGFLOPs(b, flops)
			})
		}
		b.Run(fmt.Sprintf("%d/TT", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Dgemm(true, true, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, flops)
		})
	}
}

// BenchmarkZgemm compares Zgemm with gonum's Zgemm (8*n^3 real flops; gonum
// up to 512).
func BenchmarkZgemm(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randCSlice(rng, n*n), randCSlice(rng, n*n), randCSlice(rng, n*n)
		flops := 8 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("%d/gemm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Zgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, flops)
		})
		if n > 512 {
			continue
		}
		b.Run(fmt.Sprintf("%d/gonum", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				gonum.Implementation{}.Zgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, flops)
		})
	}
}

// BenchmarkDgemmThin measures the thin products of a small MLP on a batch (the
// PINN example's 2-32-32-1 network on 1024 points): the layer's product, the
// input gradient g W^T and the weight gradient X^T g, whose long k makes packing a
// large part of the time.
func BenchmarkDgemmThin(b *testing.B) {
	cases := []gemmShape{
		{"XW/1024x32x32", false, false, 1024, 32, 32},
		{"GWt/1024x32x32", false, true, 1024, 32, 32},
		{"XtG/32x32x1024", true, false, 32, 32, 1024},
		{"XtG/2x32x1024", true, false, 2, 32, 1024},
		{"XW/1024x32x2", false, false, 1024, 32, 2},
	}
	benchDgemmShapes(b, cases)
}

// BenchmarkDgemmAttention times the six products of causal attention on one head
// (128 tokens, head size 64) on one goroutine, on the direct path and, with it
// off, on the packed path: scores Q K^T (nt), weights times values P V and dQ =
// dS K (nn), dV = P^T dY and dK = dS^T Q (tn).
func BenchmarkDgemmAttention(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const t, d = 128, 64
	x, y, z := randSlice(rng, t*t), randSlice(rng, t*t), randSlice(rng, t*t)
	cases := []directShape{
		{"nt_128x128x64", false, true, t, t, d, d, d, t},
		{"nn_128x64x128", false, false, t, d, t, t, d, d},
		{"tn_128x64x128", true, false, t, d, t, t, d, d},
	}
	benchDirectPacked(b, cases, x, y, z)
}

// BenchmarkDgemmRagged times products with m or n not a multiple of 8 on one
// goroutine, on the direct path and, with it off, on the packed path: those of a
// Gaussian mixture with d = 2, 10 and 20 (a batch of n = 1000 points times a
// d x d factor, transposed or not, and the factor's gradient X^T G with k =
// 1000), a small MLP's 10-wide output layer, and a 3x3 product.
func BenchmarkDgemmRagged(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	x, y, z := randSlice(rng, 1000*500), randSlice(rng, 1000*500), randSlice(rng, 1000*500)
	cases := []directShape{
		{"nt_1000x2x2", false, true, 1000, 2, 2, 10, 2, 10},
		{"nt_1000x10x10", false, true, 1000, 10, 10, 250, 10, 250},
		{"nn_1000x10x10", false, false, 1000, 10, 10, 250, 10, 250},
		{"tn_10x10x1000", true, false, 10, 10, 1000, 250, 250, 10},
		{"nt_1000x20x20", false, true, 1000, 20, 20, 500, 20, 500},
		{"tn_20x20x1000", true, false, 20, 20, 1000, 500, 500, 20},
		{"nn_1024x10x32", false, false, 1024, 10, 32, 32, 10, 10},
		{"nn_3x3x3", false, false, 3, 3, 3, 3, 3, 3},
	}
	benchDirectPacked(b, cases, x, y, z)
}

// gemmShape is a product of a GEMM benchmark: C (m x n) = op(A) op(B), the
// operands contiguous.
type gemmShape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

// benchDgemmShapes times Dgemm on each shape, in a sub-benchmark of its name.
func benchDgemmShapes(b *testing.B, cases []gemmShape) {
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

// directShape is a product of a benchmark of the direct path: C = op(A) op(B) with
// C m x n, and the leading dimensions of A, B and C.
type directShape struct {
	name          string
	tA, tB        bool
	m, n, k       int
	lda, ldb, ldc int
}

// benchDirectPacked times DgemmOn on one goroutine for each shape on the operands
// x, y and z, under <name>/direct and, with the direct path off, <name>/packed.
func benchDirectPacked(b *testing.B, cases []directShape, x, y, z []float64) {
	for _, c := range cases {
		for _, off := range []bool{false, true} {
			name := c.name + "/direct"
			if off {
				name = c.name + "/packed"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				directOff = off
				defer func() { directOff = false }()
				for b.Loop() {
					DgemmOn(1, c.tA, c.tB, c.m, c.n, c.k, 1, x, c.lda, y, c.ldb, 0, z, c.ldc)
				}
				reportGFLOPs(b, 2*float64(c.m*c.n*c.k))
			})
		}
	}
}

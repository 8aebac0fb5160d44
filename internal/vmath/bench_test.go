package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchImpls runs f under every implementation, as sub-benchmarks named after it.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	saved := impl
	defer func() { impl = saved }()
	for _, k := range available() {
		impl = k
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			f(b)
		})
	}
}

func perElem(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/elem")
}

// BenchmarkExp times Exp on normal samples: 4096 (in cache: the kernel's speed) and
// 1e6 (memory bound, numpy's np.exp on this machine: 0.79 ms), against math.Exp.
func BenchmarkExp(b *testing.B) {
	for _, n := range []int{4096, 1000000} {
		x := testInputs(rand.New(rand.NewPCG(1, 2)), n)
		for i := range x {
			x[i] = math.Mod(x[i], 30)
		}
		y := make([]float64, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(16 * int64(n))
				for b.Loop() {
					Exp(y, x)
				}
				perElem(b, n)
			})
			b.Run("math.Exp", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(16 * int64(n))
				for b.Loop() {
					for i, v := range x {
						y[i] = math.Exp(v)
					}
				}
				perElem(b, n)
			})
		})
	}
}

// BenchmarkTanh times Tanh on 4096 and 1e6 normal samples (numpy: 1.69 ms for 1e6).
func BenchmarkTanh(b *testing.B) {
	for _, n := range []int{4096, 1000000} {
		rng := rand.New(rand.NewPCG(3, 4))
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		y := make([]float64, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				b.SetBytes(16 * int64(n))
				for b.Loop() {
					Tanh(y, x)
				}
				perElem(b, n)
			})
		})
	}
}

// BenchmarkSumExpSub times the logsumexp inner sum over 4096 normal samples.
func BenchmarkSumExpSub(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 4096)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	benchImpls(b, func(b *testing.B) {
		b.SetBytes(8 * int64(len(x)))
		for b.Loop() {
			SumExpSub(x, 3)
		}
		perElem(b, len(x))
	})
}

// BenchmarkMax times the reductions of a 1024x1024 matrix: "rows" takes Max of
// every row (numpy's max over axis 1: 0.39 ms), "into" folds the rows into one with
// MaxInto (axis 0: 0.34 ms).
func BenchmarkMax(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n*n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	out := make([]float64, n)
	b.Run("rows", func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(8 * n * n)
			for b.Loop() {
				for i := range n {
					out[i] = Max(x[i*n : (i+1)*n])
				}
			}
		})
	})
	b.Run("into", func(b *testing.B) {
		benchImpls(b, func(b *testing.B) {
			b.SetBytes(8 * n * n)
			for b.Loop() {
				copy(out, x[:n])
				for i := 1; i < n; i++ {
					MaxInto(out, x[i*n:(i+1)*n])
				}
			}
		})
	})
}

package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkExpKernel compares the exp kernel with math.Exp on 4096 normal samples
// (in cache, so that the figure is the kernel's, not memory's).
func BenchmarkExpKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 4096)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	dst := make([]float64, len(x))
	b.Run("fastExp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			expSlice(dst, x)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
	b.Run("math.Exp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
	b.Run("fastTanh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tanhSlice(dst, x)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
	b.Run("math.Tanh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Tanh(v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
}

package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkDTypes times the tensor-level kernels in each dtype: a 256x256 matrix
// product (the packed Dgemm/Sgemm/Zgemm/Cgemm kernels), an elementwise Add and a
// Sum of 2^20 elements, and the exact widening cast of a float32 tensor.
func BenchmarkDTypes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range tensor.AllDTypes() {
		a := tensor.RandN(rng, dt, 256, 256)
		c := tensor.RandN(rng, dt, 256, 256)
		b.Run(fmt.Sprintf("matmul256/%v", dt), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tensor.MatMul(a, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		x := tensor.RandN(rng, dt, 1<<20)
		y := tensor.RandN(rng, dt, 1<<20)
		b.Run(fmt.Sprintf("add1M/%v", dt), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tensor.Add(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("sum1M/%v", dt), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tensor.Sum(x)
			}
		})
	}
	x := tensor.RandN(rng, tensor.Float32, 1<<20)
	b.Run("widen1M/float32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tensor.AsType(x, tensor.Float64); err != nil {
				b.Fatal(err)
			}
		}
	})
}

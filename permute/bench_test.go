package permute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkMaterialize permutes a 64^4 float64 tensor to (3,1,0,2) and compares with a
// plain copy of the same data and with tensor's generic strided copy.
func BenchmarkMaterialize(b *testing.B) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 64, 64, 64, 64)
	bytes := float64(2 * 8 * x.Size())
	v, err := x.Permute(3, 1, 0, 2)
	if err != nil {
		b.Fatal(err)
	}
	report := func(b *testing.B) {
		b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	}
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = x.Clone()
		}
		report(b)
	})
	b.Run("copy-into", func(b *testing.B) {
		src := x.Float64s()
		dst := make([]float64, len(src))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
		report(b)
	})
	b.Run("permute-3102", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = permute.Materialize(v)
		}
		report(b)
	})
	b.Run("tensor-contiguous-3102", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = v.Contiguous()
		}
		report(b)
	})
}

func BenchmarkMaterializeTo(b *testing.B) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 64, 64, 64, 64)
	bytes := float64(2 * 8 * x.Size())
	v, _ := x.Permute(3, 1, 0, 2)
	dst := tensor.New(tensor.Float64, v.Shape()...)
	b.ReportAllocs()
	for b.Loop() {
		if err := permute.MaterializeTo(dst, v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

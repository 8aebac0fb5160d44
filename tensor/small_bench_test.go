package tensor_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkSmall times the per-tensor overhead that dominates a recorded graph of
// small values: ops on 4-element tensors in each dtype, where making, viewing and
// reading the header costs more than the arithmetic (B/op is mostly headers).
func BenchmarkSmall(b *testing.B) {
	for _, dt := range tensor.AllDTypes() {
		x := tensor.Full(dt, 0.5, 4)
		y := tensor.Full(dt, 0.25, 4)
		b.Run("add/"+dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tensor.Add(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("scale/"+dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tensor.Scale(x, 2)
			}
		})
		b.Run("reshape/"+dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.Reshape(2, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("clone/"+dt.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = x.Clone()
			}
		})
		b.Run("at/"+dt.String(), func(b *testing.B) {
			var s complex128
			for b.Loop() {
				s += x.At(1) + x.At(3)
			}
			_ = s
		})
	}
	b.Run("scalar/float64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = tensor.Scalar(1.5)
		}
	})
	x := tensor.Full(tensor.Float64, 0.5, 4)
	b.Run("float64s", func(b *testing.B) {
		var s float64
		for b.Loop() {
			s += x.Float64s()[2]
		}
		_ = s
	})
}

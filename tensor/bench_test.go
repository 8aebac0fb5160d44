package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
)

func BenchmarkAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1000, 1000000} {
		x := tensor.RandN(rng, tensor.Float64, n)
		y := tensor.RandN(rng, tensor.Float64, n)
		b.Run(fmt.Sprintf("contiguous/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(24 * n))
			for b.Loop() {
				if _, err := tensor.Add(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	x := tensor.RandN(rng, tensor.Float64, 1000, 1000)
	row := tensor.RandN(rng, tensor.Float64, 1000)
	xt, _ := x.Transpose(0, 1)
	b.Run("broadcast-row/1000000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tensor.Add(x, row); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("transposed/1000000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tensor.Add(xt, x); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSumTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := tensor.RandN(rng, tensor.Float64, 1000, 1000)
	for _, shape := range [][]int{{1000}, {1000, 1}} {
		b.Run(fmt.Sprint(shape), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tensor.SumTo(x, shape); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMatMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, n := range []int{64, 256} {
			x := tensor.RandN(rng, dt, n, n)
			y := tensor.RandN(rng, dt, n, n)
			flops := 2.0 * float64(n*n*n)
			if dt == tensor.Complex128 {
				flops *= 4
			}
			b.Run(fmt.Sprintf("%v/%d", dt, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tensor.MatMul(x, y); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkContiguous copies a 64^4 float64 tensor permuted to (3,1,0,2) to
// contiguous storage, next to a plain copy of the same data (Clone of the
// contiguous tensor) and to two other strided views: a stepped slice and a
// broadcast.
func BenchmarkContiguous(b *testing.B) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 64, 64, 64, 64)
	perm, err := x.Permute(3, 1, 0, 2)
	if err != nil {
		b.Fatal(err)
	}
	flat, err := x.Reshape(4096, 4096)
	if err != nil {
		b.Fatal(err)
	}
	xt, err := flat.Transpose(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	stepped, err := xt.Slice(1, 0, 4096, 2)
	if err != nil {
		b.Fatal(err)
	}
	row, err := tensor.RandN(rand.New(rand.NewPCG(3, 4)), tensor.Float64, 4096, 1).BroadcastTo(4096, 4096)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		t    *tensor.Dense
	}{
		{"copy", x},
		{"permuted-3102", perm},
		{"transposed-4096", xt},
		{"transposed-stepped", stepped},
		{"broadcast-column", row},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bytes := float64(2 * 8 * c.t.Size())
			b.ReportAllocs()
			for b.Loop() {
				_ = c.t.Clone()
			}
			b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkReductions runs the two-operand reductions Dot, Space.Inner and
// EqualApprox over n×n tensors (n = 100: in cache; n = 1000: from memory),
// contiguous and with the first operand transposed (a strided walk).
func BenchmarkReductions(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{100, 1000} {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
			x := tensor.RandN(rng, dt, n, n)
			y := tensor.RandN(rng, dt, n, n)
			xt, err := x.Transpose(0, 1)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range []struct {
				name string
				a    *tensor.Dense
			}{{"contiguous", x}, {"transposed", xt}} {
				b.Run(fmt.Sprintf("Dot/%v/%s/%d", dt, c.name, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := tensor.Dot(c.a, y); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("Inner/%v/%s/%d", dt, c.name, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := (tensor.Space{}).Inner(c.a, y); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			// Every element differs by a rounding or two, so that each one is
			// compared through its absolute value.
			x2 := tensor.Scale(x, 1+1e-15)
			b.Run(fmt.Sprintf("EqualApprox/%v/%d", dt, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if !tensor.EqualApprox(x, x2, 1e-12, 1e-12) {
						b.Fatal("a tensor differs from its rescaled copy")
					}
				}
			})
		}
	}
}

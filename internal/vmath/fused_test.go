package vmath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The fused kernels against their scalar definitions, bit for bit, at lengths
// around the 8-element blocks of the assembly (and on other platforms the Go loops
// against themselves written out), with special values among the inputs.
func TestFusedBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	draw := func(n int) []float64 { return drawSpecials(rng, n, true) }
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 1003} {
		a, b, d, v := draw(n), draw(n), draw(n), draw(n)
		const c = -2.5
		got := make([]float64, n)
		Mul3(got, a, b, d, c)
		for i := range got {
			if want := c * a[i] * b[i] * d[i]; !same(got[i], want) {
				t.Fatalf("Mul3 n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		TanhBackward(got, a, b)
		for i := range got {
			if want := (1 - a[i]*a[i]) * b[i]; !same(got[i], want) {
				t.Fatalf("TanhBackward n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		g2, g3 := make([]float64, n), make([]float64, n)
		Mul3Pull(got, g2, g3, a, b, d, v, c)
		for i := range got {
			wa, wb, wd := c*b[i]*d[i]*v[i], c*a[i]*d[i]*v[i], c*a[i]*b[i]*v[i]
			if !same(got[i], wa) || !same(g2[i], wb) || !same(g3[i], wd) {
				t.Fatalf("Mul3Pull n=%d [%d]: got %v %v %v, want %v %v %v", n, i, got[i], g2[i], g3[i], wa, wb, wd)
			}
		}
		Add(got, a, b)
		for i := range got {
			if want := a[i] + b[i]; !same(got[i], want) {
				t.Fatalf("Add n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		acc := slices.Clone(a)
		Add(acc, acc, b) // in place, as Accumulate does
		for i := range acc {
			if want := a[i] + b[i]; !same(acc[i], want) {
				t.Fatalf("Add in place n=%d [%d]: got %v, want %v", n, i, acc[i], want)
			}
		}
		gg := make([]float64, n)
		TanhBackwardPull(got, gg, v, a, b)
		for i := range got {
			wy, wg := (-2*a[i]*b[i])*v[i], (1-a[i]*a[i])*v[i]
			if !same(got[i], wy) || !same(gg[i], wg) {
				t.Fatalf("TanhBackwardPull n=%d [%d]: got %v %v, want %v %v", n, i, got[i], gg[i], wy, wg)
			}
		}
	}
}

// BenchmarkFused measures the fused kernels on a 1024x32 activation (the PINN
// example's layer), in elements per ns.
func BenchmarkFused(b *testing.B) {
	const n = 1024 * 32
	rng := rand.New(rand.NewPCG(1, 2))
	x := func() []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
		return s
	}
	a, c, d, w, dst, dst2, dst3 := x(), x(), x(), x(), x(), x(), x()
	for _, k := range []struct {
		name string
		f    func()
	}{
		{"mul3", func() { Mul3(dst, a, c, d, -2) }},
		{"mul3_pull", func() { Mul3Pull(dst, dst2, dst3, a, c, d, w, -2) }},
		{"tanh_backward", func() { TanhBackward(dst, a, c) }},
		{"tanh_backward_pull", func() { TanhBackwardPull(dst, dst2, d, a, c) }},
	} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.f()
			}
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "elem/ns")
		})
	}
}

// TestAdd32 checks Add32 against the Go sum, bit for bit, for lengths across the
// blocks of 16 and their tails, and in place.
func TestAdd32(t *testing.T) {
	for n := range 70 {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i)*0.37-5, 1/float32(i+3)
		}
		got := make([]float32, n)
		Add32(got, a, b)
		for i := range got {
			if want := a[i] + b[i]; math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("Add32 n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		acc := slices.Clone(a)
		Add32(acc, acc, b)
		if !slices.Equal(acc, got) {
			t.Fatalf("Add32 in place n=%d: got %v, want %v", n, acc, got)
		}
	}
}

// TestTanhPull32 checks TanhPull32 and TanhPullTangent32 against their Go
// formulas, bit for bit (the assembly does the same float32 operations in the same
// order), across the blocks of 8 and their tails.
func TestTanhPull32(t *testing.T) {
	for n := range 40 {
		y, v, wd, xd := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range y {
			y[i] = float32(math.Tanh(float64(i)*0.3 - 4))
			v[i], wd[i], xd[i] = float32(i)*0.7-9, 1/float32(i+2), float32(n-i)*0.11
		}
		got, got2 := make([]float32, n), make([]float32, n)
		TanhPull32(got, y, v)
		for i := range got {
			if want := (1 - y[i]) * (1 + y[i]) * v[i]; math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("TanhPull32 n=%d [%d]: got %v, want %v", n, i, got[i], want)
			}
		}
		TanhPullTangent32(got, got2, y, v, wd, xd)
		for i := range got {
			d := (1 - y[i]) * (1 + y[i])
			wb, wbd := d*v[i], d*wd[i]+-2*y[i]*d*xd[i]*v[i]
			if math.Float32bits(got[i]) != math.Float32bits(wb) || math.Float32bits(got2[i]) != math.Float32bits(wbd) {
				t.Fatalf("TanhPullTangent32 n=%d [%d]: got %v %v, want %v %v", n, i, got[i], got2[i], wb, wbd)
			}
		}
	}
}

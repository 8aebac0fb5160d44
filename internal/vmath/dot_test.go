package vmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// dotRef is Dot's documented order in plain Go.
func dotRef(x, y []float64) float64 {
	var s [32]float64
	for i := range x {
		s[i%32] = math.FMA(x[i], y[i], s[i%32])
	}
	var t [8]float64
	for l := range t {
		t[l] = (s[l] + s[8+l]) + (s[16+l] + s[24+l])
	}
	u := [4]float64{t[0] + t[4], t[1] + t[5], t[2] + t[6], t[3] + t[7]}
	return (u[0] + u[2]) + (u[1] + u[3])
}

func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 100, 1000, 4099} {
			x, y := make([]float64, n), make([]float64, n+3)
			exact := new(big.Float).SetPrec(2000)
			for i := range x {
				x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				p := new(big.Float).SetPrec(2000).SetFloat64(x[i])
				exact.Add(exact, p.Mul(p, new(big.Float).SetFloat64(y[i])))
			}
			got := Dot(x, y)
			if want := dotRef(x, y[:n]); !same(got, want) {
				t.Errorf("n=%d: %v, want %v (the documented order, bit for bit)", n, got, want)
			}
			e, _ := exact.Float64()
			if math.Abs(got-e) > 1e-13*math.Sqrt(float64(n)+1)*float64(n+1) {
				t.Errorf("n=%d: %v, exact %v", n, got, e)
			}
		}
		// NaN and infinities propagate.
		x := make([]float64, 70)
		y := make([]float64, 70)
		for i := range x {
			x[i], y[i] = 1, 1
		}
		x[40] = math.NaN()
		if v := Dot(x, y); !math.IsNaN(v) {
			t.Errorf("NaN: %v", v)
		}
		x[40] = math.Inf(1)
		if v := Dot(x, y); !math.IsInf(v, 1) {
			t.Errorf("+Inf: %v", v)
		}
	})
}

func BenchmarkDot(b *testing.B) {
	x, y := make([]float64, 2048), make([]float64, 2048)
	for i := range x {
		x[i], y[i] = float64(i), 1/float64(i+1)
	}
	b.Run("vmath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Dot(x, y)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
	b.Run("go-loop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s float64
			for i, v := range x {
				s += v * y[i]
			}
			_ = s
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
}

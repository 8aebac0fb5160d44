package reduce

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExp compares exp with math.Exp in ulps over the range the kernels use and at
// the edges.
func TestExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -707.9, 708.9, -708, 709, -745, -746, 710, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 200000 {
		xs = append(xs, -750+760*rng.Float64(), -2+4*rng.Float64())
	}
	worst := 0.0
	for _, x := range xs {
		got, want := exp(x), math.Exp(x)
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("exp(%v) = %v, want NaN", x, got)
			}
			continue
		}
		if want == 0 || math.IsInf(want, 0) {
			if got != want {
				t.Fatalf("exp(%v) = %v, want %v", x, got, want)
			}
			continue
		}
		ulp := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
		worst = max(worst, ulp)
	}
	if worst > 2 {
		t.Errorf("exp is %v ulp from math.Exp at worst, want <= 2", worst)
	}
	t.Logf("worst error %.2f ulp", worst)
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) / 512
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += exp(x)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(xs)), "ns/exp")
	})
	b.Run("math", func(b *testing.B) {
		b.ReportAllocs()
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += math.Exp(x)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(xs)), "ns/exp")
	})
}

func TestSumExp(t *testing.T) {
	x := []float64{0, -1, 2, -800, 3.5, math.Inf(-1), 1e-3}
	want := 0.0
	for _, v := range x {
		want += math.Exp(v - 2)
	}
	if got := sumExp(x, 2); math.Abs(got-want) > 4e-16*want {
		t.Errorf("sumExp = %v, want %v", got, want)
	}
}

// TestExpScale checks that the vector kernels of expScale, expScaleVec and addExp
// compute exactly exp(x - m) * c and acc + exp(x - m), edges included.
func TestExpScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	xs := []float64{0, 1, -1, 709.5, -709, -800, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 1000 {
		xs = append(xs, -720+1440*rng.Float64())
	}
	ms, cs := make([]float64, len(xs)), make([]float64, len(xs))
	for i := range ms {
		ms[i], cs[i] = 3*rng.NormFloat64(), rng.NormFloat64()
	}
	got, gotVec, gotAdd := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	expScale(got, xs, ms[0], cs[0])
	expScaleVec(gotVec, xs, ms, cs)
	copy(gotAdd, cs)
	addExp(gotAdd, xs, ms)
	same := func(a, b float64) bool { return a == b || (a != a && b != b) }
	for i, x := range xs {
		if want := exp(x-ms[0]) * cs[0]; !same(got[i], want) {
			t.Errorf("expScale at %v: got %v, want %v", x, got[i], want)
		}
		if want := exp(x-ms[i]) * cs[i]; !same(gotVec[i], want) {
			t.Errorf("expScaleVec at %v: got %v, want %v", x, gotVec[i], want)
		}
		if want := cs[i] + exp(x-ms[i]); !same(gotAdd[i], want) {
			t.Errorf("addExp at %v: got %v, want %v", x, gotAdd[i], want)
		}
	}
}

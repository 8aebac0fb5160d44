package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The float64 matrix-vector product with long rows goes through vmath.Dot: check it
// against a plain loop with row strides, alpha, beta and a strided result.
func TestGemvLongRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct {
		m, k, lda, ldc int
		alpha, beta    float64
	}{
		{5, 256, 256, 1, 1, 0},
		{7, 300, 311, 3, -0.5, 2},
		{1, 1000, 1000, 1, 2, 1},
	} {
		a := make([]float64, (c.m-1)*c.lda+c.k)
		x := make([]float64, c.k)
		y := make([]float64, (c.m-1)*c.ldc+1)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		want := append([]float64(nil), y...)
		for i := range c.m {
			var s float64
			for l := range c.k {
				s += a[i*c.lda+l] * x[l]
			}
			want[i*c.ldc] = c.alpha*s + c.beta*y[i*c.ldc]
		}
		if err := Gemm(false, false, c.m, 1, c.k, c.alpha, a, c.lda, x, 1, c.beta, y, c.ldc); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if math.Abs(y[i]-want[i]) > 1e-12*math.Sqrt(float64(c.k))*(1+math.Abs(want[i])) {
				t.Errorf("%+v: y[%d] = %v, want %v", c, i, y[i], want[i])
			}
		}
	}
}

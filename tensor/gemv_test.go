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

// The matrix-vector and outer-product shapes split their rows (or columns) over
// goroutines from memBoundMin elements on: every shape, on 1 and on 2 and 3
// workers, with row counts that are not multiples of the chunk alignment, gives
// the same result bit for bit, and agrees with a plain loop.
func TestMemBoundSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	randn := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	for _, c := range []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"gemv", false, false, 7003, 1, 300},
		{"gemv short rows", false, false, 300001, 1, 7},
		{"gemv transposed", true, false, 7001, 1, 301},
		{"vector times matrix", false, false, 1, 7001, 301},
		{"vector times transposed matrix", false, true, 1, 7003, 300},
		{"outer", false, false, 2053, 1031, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			lda, ldb := c.k, c.n
			if c.transA {
				lda = c.m
			}
			if c.transB {
				ldb = c.k
			}
			a, b := randn(c.m*c.k), randn(c.k*c.n)
			c0 := randn(c.m * c.n)
			want := make([]float64, len(c0))
			for i := range c.m {
				for j := range c.n {
					var s float64
					for l := range c.k {
						ai, bi := i*lda+l, l*ldb+j
						if c.transA {
							ai = l*lda + i
						}
						if c.transB {
							bi = j*ldb + l
						}
						s += a[ai] * b[bi]
					}
					want[i*c.n+j] = 0.5*s - 2*c0[i*c.n+j]
				}
			}
			var ref []float64
			for _, workers := range []int{1, 2, 3} {
				got := append([]float64(nil), c0...)
				gemmNative(workers, c.transA, c.transB, c.m, c.n, c.k, 0.5, a, lda, b, ldb, -2, got, c.n)
				if workers == 1 {
					ref = got
					for i := range got {
						if math.Abs(got[i]-want[i]) > 1e-12*float64(c.k)*(1+math.Abs(want[i])) {
							t.Fatalf("element %d = %v, want %v", i, got[i], want[i])
						}
					}
					continue
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
						t.Fatalf("%d workers: element %d = %v, one worker gives %v", workers, i, got[i], ref[i])
					}
				}
			}
		})
	}
}

// The float32 matrix-vector product with long rows goes through vmath.Dot32
// (products summed in float64, rounded once): check it against the float64 sum
// of the same float32 products, with row strides, alpha, beta and a strided
// result, to within a few roundings of float32 (a running float32 sum of 1000
// terms may be off by far more).
func TestGemvLongRows32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 32))
	for _, c := range []struct {
		m, k, lda, ldc int
		alpha, beta    float32
	}{
		{5, 256, 256, 1, 1, 0},
		{7, 300, 311, 3, -0.5, 2},
		{1, 1000, 1000, 1, 2, 1},
		{9, 257, 260, 2, 1, -1},
	} {
		a := make([]float32, (c.m-1)*c.lda+c.k)
		x := make([]float32, c.k)
		y := make([]float32, (c.m-1)*c.ldc+1)
		for _, v := range [][]float32{a, x, y} {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
		}
		want := make([]float64, len(y))
		bound := make([]float64, len(y))
		for i := range y {
			want[i], bound[i] = float64(y[i]), 0
		}
		for i := range c.m {
			var s, abs float64
			for l := range c.k {
				p := float64(a[i*c.lda+l] * x[l])
				s += p
				abs += math.Abs(p)
			}
			want[i*c.ldc] = float64(c.alpha)*s + float64(c.beta)*float64(y[i*c.ldc])
			bound[i*c.ldc] = 4 * 0x1p-24 * (math.Abs(float64(c.alpha))*abs + math.Abs(float64(c.beta)*float64(y[i*c.ldc])))
		}
		if err := Gemm(false, false, c.m, 1, c.k, c.alpha, a, c.lda, x, 1, c.beta, y, c.ldc); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if d := math.Abs(float64(y[i]) - want[i]); d > bound[i] {
				t.Errorf("%+v: y[%d] = %v, want %v (error %.3g > %.3g)", c, i, y[i], want[i], d, bound[i])
			}
		}
	}
}

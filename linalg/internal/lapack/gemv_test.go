package lapack

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemvKernels compares gemvN, gemvT and symvLower with plain loops for every
// shape up to 13×13 and a few larger ones (the assembly takes multiples of four
// rows and columns, Go the rest), with a leading dimension larger than the row.
func TestGemvKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 37, 64, 101}
	close := func(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-14*scale }
	for _, m := range sizes {
		for _, n := range sizes {
			lda := n + 3
			a := randSlice(rng, max(m*lda, 1))
			x := randSlice(rng, max(n, m, 1))
			const alpha = -0.75
			// gemvN with incy = 2.
			y := randSlice(rng, max(2*m, 1))
			want := append([]float64(nil), y...)
			for r := range m {
				s := 0.0
				for j := range n {
					s += a[r*lda+j] * x[j]
				}
				want[2*r] += alpha * s
			}
			gemvN(m, n, alpha, a, lda, x, y, 2)
			for i := range y {
				if !close(y[i], want[i], float64(n+1)) {
					t.Fatalf("gemvN %dx%d: y[%d] = %v, want %v", m, n, i, y[i], want[i])
				}
			}
			// gemvT.
			y = randSlice(rng, max(n, 1))
			want = append(want[:0], y...)
			for r := range m {
				for j := range n {
					want[j] += alpha * x[r] * a[r*lda+j]
				}
			}
			gemvT(m, n, alpha, a, lda, x, y)
			for i := range y {
				if !close(y[i], want[i], float64(m+1)) {
					t.Fatalf("gemvT %dx%d: y[%d] = %v, want %v", m, n, i, y[i], want[i])
				}
			}
		}
		// symvLower on the lower triangle of an m×m matrix whose strict upper
		// triangle is NaN (never read).
		lda := m + 2
		a := randSlice(rng, max(m*lda, 1))
		for i := range m {
			for j := i + 1; j < lda; j++ {
				a[i*lda+j] = math.NaN()
			}
		}
		x := randSlice(rng, max(m, 1))
		y := make([]float64, m)
		symvLower(m, a, lda, x, y)
		for i := range m {
			s := 0.0
			for j := range m {
				if j <= i {
					s += a[i*lda+j] * x[j]
				} else {
					s += a[j*lda+i] * x[j]
				}
			}
			if !close(y[i], s, float64(m+1)) {
				t.Fatalf("symvLower %d: y[%d] = %v, want %v", m, i, y[i], s)
			}
		}
	}
}

// symv4 (eight columns at a time in AVX-512 where the CPU has it, then four, then
// Go) agrees with plain loops for every width up to 27.
func TestSymv4Widths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 28 {
		lda := n + 5
		a := randSlice(rng, 4*lda)
		x, y := randSlice(rng, max(n, 1)), randSlice(rng, max(n, 1))
		c := [4]float64{0.5, -1.25, 2, 0.75}
		wantY := append([]float64(nil), y...)
		var wantD [4]float64
		for q := range 4 {
			for j := range n {
				wantD[q] += a[q*lda+j] * x[j]
				wantY[j] += c[q] * a[q*lda+j]
			}
		}
		var d [4]float64
		if n > 0 {
			d = symv4(a, lda, n, x, &c, y)
		}
		for q := range 4 {
			if math.Abs(d[q]-wantD[q]) > 1e-14*float64(n+1) {
				t.Errorf("n=%d: d[%d] = %v, want %v", n, q, d[q], wantD[q])
			}
		}
		for j := range n {
			if math.Abs(y[j]-wantY[j]) > 1e-14*4 {
				t.Errorf("n=%d: y[%d] = %v, want %v", n, j, y[j], wantY[j])
			}
		}
	}
}

package gemm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRowsColsB checks RowsB and ColsB against Sgemm and Dgemm on the
// materialised B, bit for bit, on shapes with edge tiles, several k blocks and
// overlapping rows, at 1 and 3 workers.
func TestRowsColsB(t *testing.T) {
	testRowsColsB[float32](t)
	testRowsColsB[float64](t)
}

func testRowsColsB[R float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rnd := func(n int) []R {
		s := make([]R, n)
		for i := range s {
			s[i] = R(2*rng.Float64() - 1)
		}
		return s
	}
	for _, sz := range [][3]int{{1, 1, 1}, {8, 48, 3}, {13, 101, 300}, {70, 257, 520}, {96, 3100, 64}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, runs := range []bool{false, true} {
			for _, transA := range []bool{false, true} {
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("%T/%dx%dx%d/runs=%v/transA=%v/workers=%d", R(0), m, n, k, runs, transA, workers)
					t.Run(name, func(t *testing.T) {
						lda := k + 1
						if transA {
							lda = m + 2
						}
						a := rnd(lda * max(m, k))
						store := rnd(n + 3*k + 5)
						// Rows of B at overlapping offsets.
						rowB := offsets(rng, k, 3*k+6, runs)
						bm := make([]R, k*n)
						for p := range k {
							copy(bm[p*n:(p+1)*n], store[rowB[p]:])
						}
						c0 := rnd(m * (n + 1))
						want, got := slices.Clone(c0), slices.Clone(c0)
						gemmOn(workers, transA, false, m, n, k, 0.5, a, lda, bm, n, 1.5, want, n+1)
						RowsB(workers, transA, m, n, k, 0.5, a, lda, store, rowB, 1.5, got, n+1)
						if !slices.Equal(got, want) {
							t.Fatal("RowsB differs from the GEMM of the materialised B")
						}
						// Columns of B at overlapping offsets: B^T stored densely.
						colB := offsets(rng, n, 2*n+6, runs)
						bt := make([]R, n*k)
						store2 := rnd(k + 2*n + 5)
						for j := range n {
							copy(bt[j*k:(j+1)*k], store2[colB[j]:])
						}
						want, got = slices.Clone(c0), slices.Clone(c0)
						gemmOn(workers, transA, true, m, n, k, 0.5, a, lda, bt, k, 1.5, want, n+1)
						ColsB(workers, transA, m, n, k, 0.5, a, lda, store2, colB, 1.5, got, n+1)
						if !slices.Equal(got, want) {
							t.Fatal("ColsB differs from the GEMM of the materialised B")
						}
					})
				}
			}
		}
	}
}

// offsets returns n offsets in [0, limit): random ones, or (runs) runs of
// random lengths up to 12 at constant strides, as the rows of a convolution's
// implicit im2col are.
func offsets(rng *rand.Rand, n, limit int, runs bool) []int {
	off := make([]int, n)
	for i := 0; i < n; {
		if !runs {
			off[i] = rng.IntN(limit)
			i++
			continue
		}
		l := 1 + rng.IntN(12)
		d := 1 + rng.IntN(max(1, limit/l))
		start := rng.IntN(max(1, limit-(l-1)*d))
		for j := 0; j < l && i < n; j++ {
			off[i] = min(start+j*d, limit-1)
			i++
		}
	}
	return off
}

// gemmOn is SgemmOn or DgemmOn.
func gemmOn[R float](workers int, transA, transB bool, m, n, k int, alpha R, a []R, lda int, b []R, ldb int, beta R, c []R, ldc int) {
	realGemmOn(kernelOf[R](), workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// TestRowsBPanics checks that a row or column past the end of b panics.
func TestRowsBPanics(t *testing.T) {
	c := make([]float32, 4)
	for name, f := range map[string]func(){
		"RowsB": func() { RowsB(1, false, 2, 2, 1, 1, []float32{1, 2}, 1, []float32{1, 2, 3}, []int{2}, 0, c, 2) },
		"ColsB": func() { ColsB(1, false, 2, 2, 2, 1, make([]float32, 4), 2, []float32{1, 2, 3}, []int{0, 2}, 0, c, 2) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// BenchmarkRowsB compares the implicit GEMMs of a 3x3 convolution of 64
// channels on a 56x56 image (padded 58x58) with Sgemm on the materialised
// im2col matrix, whose construction is not timed: the forward product (RowsB,
// W [64, 576] times the rows) and the weight gradient (ColsB, G [64, 3246]
// times the rows transposed).
func BenchmarkRowsB(b *testing.B) {
	const cin, cout, pin, out = 64, 64, 58, 56
	L := (out-1)*pin + out
	rng := rand.New(rand.NewPCG(1, 1))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
		return s
	}
	xp, w, g := rnd(cin*pin*pin), rnd(cout*cin*9), rnd(cout*L)
	rows := make([]int, 0, cin*9)
	for t := range 9 {
		for c := range cin {
			rows = append(rows, c*pin*pin+t/3*pin+t%3)
		}
	}
	col := make([]float32, len(rows)*L)
	for r, o := range rows {
		copy(col[r*L:(r+1)*L], xp[o:])
	}
	k := len(rows)
	y := make([]float32, cout*L)
	dw := make([]float32, cout*k)
	flops := 2 * float64(cout) * float64(k) * float64(L)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"forward/RowsB", func() { RowsB(1, false, cout, L, k, 1, w, k, xp, rows, 0, y, L) }},
		{"forward/Sgemm", func() { SgemmOn(1, false, false, cout, L, k, 1, w, k, col, L, 0, y, L) }},
		{"weight/ColsB", func() { ColsB(1, false, cout, k, L, 1, g, L, xp, rows, 0, dw, k) }},
		{"weight/Sgemm", func() { SgemmOn(1, false, true, cout, k, L, 1, g, L, col, L, 0, dw, k) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.f()
			}
			reportGFLOPs(b, flops)
		})
	}
}

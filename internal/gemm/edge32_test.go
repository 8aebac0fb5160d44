package gemm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSgemmEdge: the float32 edge kernel gives the results of the full kernel bit
// for bit, on shapes whose last column tile is edgeN wide (n = 16, 64, 256) or
// narrower (n = 10, 58, 5), whole or partial in rows (m = 21, 3), across a KC
// block boundary (k = 300, 784), with op(A) and op(B) transposed or not, alpha 1
// (no scaling) or not and beta 0 or not.
func TestSgemmEdge(t *testing.T) {
	saved := kern32
	defer func() { kern32 = saved }()
	for _, kn := range kernels32() {
		if kn.edge == nil {
			continue
		}
		t.Run(kn.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			for _, s := range [][3]int{{16, 16, 40}, {21, 64, 300}, {256, 256, 784}, {256, 10, 256}, {3, 58, 7}, {8, 5, 1}, {40, 112, 193}} {
				m, n, k := s[0], s[1], s[2]
				for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					for _, ab := range [][2]float32{{0.75, 0}, {0.75, 0.5}, {1, 0}, {1, 1}} {
						alpha, beta := ab[0], ab[1]
						tA, tB := tr[0], tr[1]
						ar, ac := dims(tA, m, k)
						br, bc := dims(tB, k, n)
						a, b := randSlice32(rng, ar*ac), randSlice32(rng, br*bc)
						c0 := randSlice32(rng, m*n)
						with, without := slices.Clone(c0), slices.Clone(c0)
						kern32 = kn
						SgemmOn(1, tA, tB, m, n, k, alpha, a, ac, b, bc, beta, with, n)
						noEdge := *kn
						noEdge.edge = nil
						kern32 = &noEdge
						SgemmOn(1, tA, tB, m, n, k, alpha, a, ac, b, bc, beta, without, n)
						for i := range with {
							if math.Float32bits(with[i]) != math.Float32bits(without[i]) {
								t.Fatalf("%v tA=%v tB=%v alpha=%v beta=%v: c[%d] = %v with the edge kernel, %v without", s, tA, tB, alpha, beta, i, with[i], without[i])
							}
						}
					}
				}
			}
		})
	}
}

// BenchmarkSgemmMLP times the float32 products of a 784-256-256-10 MLP on a batch
// of 256 (hvp's BenchmarkMLP32) on one goroutine: the layer products X W, the
// weight gradients X^T G and the input gradients G W^T; under packed/, the same
// with the direct path (direct32) off.
func BenchmarkSgemmMLP(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, s := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"XW/256x256x784", false, false, 256, 256, 784},
		{"XW/256x256x256", false, false, 256, 256, 256},
		{"XW/256x10x256", false, false, 256, 10, 256},
		{"XtG/784x256x256", true, false, 784, 256, 256},
		{"XtG/256x256x256", true, false, 256, 256, 256},
		{"XtG/256x10x256", true, false, 256, 10, 256},
		{"GWt/256x256x256", false, true, 256, 256, 256},
		{"GWt/256x256x10", false, true, 256, 256, 10},
	} {
		ar, ac := dims(s.tA, s.m, s.k)
		br, bc := dims(s.tB, s.k, s.n)
		a, bm, c := randSlice32(rng, ar*ac), randSlice32(rng, br*bc), make([]float32, s.m*s.n)
		for _, off := range []bool{false, true} {
			name := s.name
			if off {
				name = "packed/" + s.name
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				directOff = off
				defer func() { directOff = false }()
				for b.Loop() {
					SgemmOn(1, s.tA, s.tB, s.m, s.n, s.k, 1, a, ac, bm, bc, 0, c, s.n)
				}
				reportGFLOPs(b, 2*float64(s.m)*float64(s.n)*float64(s.k))
			})
		}
	}
}

package gemm

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chainrules-go/chainrules/internal/race"
)

// sentinel fills the parts of C outside the m x n matrix (row padding).
const sentinel = -12345.5

// withKernel runs f once for each kernel available on this machine, with kern
// set to it.
func withKernel(t *testing.T, f func(t *testing.T)) {
	saved := kern
	defer func() { kern = saved }()
	for _, kn := range kernels() {
		kern = kn
		t.Run(kn.name, f)
	}
}

func refDgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				ai, bi := i*lda+p, p*ldb+j
				if tA {
					ai = p*lda + i
				}
				if tB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

func refZgemm(tA, tB bool, m, n, k int, alpha complex128, a []complex128, lda int, b []complex128, ldb int, beta complex128, c []complex128, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s complex128
			for p := 0; p < k; p++ {
				ai, bi := i*lda+p, p*ldb+j
				if tA {
					ai = p*lda + i
				}
				if tB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

type dcase struct {
	tA, tB      bool
	m, n, k     int
	pad         int // extra elements per row of A, B and C
	alpha, beta float64
}

func (tc dcase) String() string {
	return fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,pad=%d,alpha=%g,beta=%g", tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.pad, tc.alpha, tc.beta)
}

// dims returns the stored shape (rows, cols) of op^-1 for an operand.
func dims(trans bool, r, c int) (int, int) {
	if trans {
		return c, r
	}
	return r, c
}

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*rng.Float64() - 1
	}
	return s
}

// checkDgemm runs Dgemm and the reference on the same inputs and compares.
func checkDgemm(t *testing.T, rng *rand.Rand, tc dcase) {
	t.Helper()
	ar, ac := dims(tc.tA, tc.m, tc.k)
	br, bc := dims(tc.tB, tc.k, tc.n)
	lda, ldb, ldc := max(ac+tc.pad, 1), max(bc+tc.pad, 1), max(tc.n+tc.pad, 1)
	a := randSlice(rng, max(0, (ar-1)*lda+ac))
	b := randSlice(rng, max(0, (br-1)*ldb+bc))
	var c []float64
	if tc.m > 0 {
		c = make([]float64, (tc.m-1)*ldc+tc.n)
	}
	for i := range c {
		switch {
		case i%ldc >= tc.n:
			c[i] = sentinel
		case tc.beta == 0:
			c[i] = math.NaN()
		default:
			c[i] = 2*rng.Float64() - 1
		}
	}
	want := append([]float64(nil), c...)
	refDgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
	Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	tol := 1e-14 * float64(tc.k+4) * (math.Abs(tc.alpha) + math.Abs(tc.beta) + 1)
	for i := range c {
		if i%ldc >= tc.n {
			if c[i] != sentinel {
				t.Fatalf("%v: wrote outside C at %d: %v", tc, i, c[i])
			}
			continue
		}
		if d := math.Abs(c[i] - want[i]); !(d <= tol) {
			t.Fatalf("%v: c[%d,%d] = %v, want %v", tc, i/ldc, i%ldc, c[i], want[i])
		}
	}
}

var shapes = [][3]int{
	{1, 1, 1}, {1, 37, 5}, {37, 1, 5}, {1, 1, 50}, {6, 5, 0}, {0, 5, 5}, {5, 0, 5},
	{7, 13, 31}, {13, 7, 97}, {31, 97, 13}, {97, 31, 7}, {8, 24, 16}, {4, 12, 3},
	{9, 25, 17}, {16, 48, 1}, {33, 50, 70}, {16, 32, 40}, {21, 56, 300}, {3, 8, 9},
	{24, 56, 300}, {8, 8, 5},
}

// The direct path (unpacked operands, for thin and small products) gives the
// results of the packed path bit for bit, with every transposition, for beta 0, 1
// and other, with padded strides: on the shapes of a small MLP, of attention heads,
// and with a last column tile of 8 or 16 (n = 24 q + 8 or 24 q + 16) and k over
// two blocks.
func TestDgemmDirect(t *testing.T) {
	defer func() { directOff = false }()
	rng := rand.New(rand.NewPCG(7, 8))
	// The path is taken where it applies (with the AVX-512 kernel).
	a, b, c := randSlice(rng, 16*8), randSlice(rng, 8*32), make([]float64, 16*32)
	taken := directRun(kern, 16, 32, 8, &realA[float64]{a: a, lda: 8}, &realB[float64]{b: b, ldb: 32}, 1, 0, c, 32)
	if want := kern.name == "avx512_8x24"; taken != want {
		t.Fatalf("direct path taken: %v with kernel %s", taken, kern.name)
	}
	// A ragged product goes direct with beta 0 or 1, not with another beta.
	for _, beta := range []float64{0, 1, 0.5} {
		a, b, c := randSlice(rng, 20*10), randSlice(rng, 10*10), make([]float64, 20*10)
		taken := directRun(kern, 20, 10, 10, &realA[float64]{a: a, lda: 10}, &realB[float64]{b: b, ldb: 10}, 1, beta, c, 10)
		if want := kern.name == "avx512_8x24" && beta != 0.5; taken != want {
			t.Fatalf("direct path taken for 20x10x10 with beta %v: %v with kernel %s", beta, taken, kern.name)
		}
	}
	for _, s := range [][3]int{{1024, 32, 32}, {32, 32, 1024}, {1024, 32, 2}, {16, 8, 3}, {8, 56, 100}, {24, 48, 7},
		{128, 128, 64}, {128, 64, 128}, {16, 16, 5}, {24, 40, 300}, {8, 88, 9}, {16, 256, 128},
		// Ragged: m or n not a multiple of 8 (beta 0 and 1 only), such as a
		// Gaussian mixture's products of n points by d x d factors.
		{1000, 10, 10}, {10, 10, 1000}, {1000, 2, 2}, {20, 20, 600}, {1000, 20, 20}, {13, 7, 97},
		{5, 30, 7}, {9, 25, 17}, {3, 3, 3}, {31, 250, 9}, {7, 16, 300}, {17, 34, 3}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1, 0.3} {
					ar, ac := dims(tA, m, k)
					br, bc := dims(tB, k, n)
					const pad = 3
					a, b := randSlice(rng, ar*(ac+pad)), randSlice(rng, br*(bc+pad))
					c0 := randSlice(rng, m*(n+pad))
					with, without := slices.Clone(c0), slices.Clone(c0)
					directOff = false
					Dgemm(tA, tB, m, n, k, -1.25, a, ac+pad, b, bc+pad, beta, with, n+pad)
					directOff = true
					Dgemm(tA, tB, m, n, k, -1.25, a, ac+pad, b, bc+pad, beta, without, n+pad)
					for i := range with {
						if math.Float64bits(with[i]) != math.Float64bits(without[i]) {
							t.Fatalf("%v tA=%v tB=%v beta=%v: c[%d] = %v direct, %v packed", s, tA, tB, beta, i, with[i], without[i])
						}
					}
				}
			}
		}
	}
}

// The 8-column edge kernel gives the results of the full kernel bit for bit, on
// shapes whose last column tile is 8 wide (n = 32, 56) or narrower, whole or
// partial in rows, across a KC block boundary.
func TestDgemmEdge8(t *testing.T) {
	saved := kern
	defer func() { kern = saved }()
	for _, kn := range kernels() {
		if kn.edge == nil {
			continue
		}
		t.Run(kn.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			for _, s := range [][3]int{{16, 32, 40}, {21, 56, 300}, {2, 32, 1024}, {1024, 32, 32}, {8, 8, 3}, {5, 30, 7}} {
				m, n, k := s[0], s[1], s[2]
				for _, tA := range []bool{false, true} {
					for _, beta := range []float64{0, 0.5} {
						ar, ac := dims(tA, m, k)
						a, b := randSlice(rng, ar*ac), randSlice(rng, k*n)
						c0 := randSlice(rng, m*n)
						with, without := slices.Clone(c0), slices.Clone(c0)
						kern = kn
						Dgemm(tA, false, m, n, k, 0.75, a, ac, b, n, beta, with, n)
						noEdge := *kn
						noEdge.edge = nil
						kern = &noEdge
						Dgemm(tA, false, m, n, k, 0.75, a, ac, b, n, beta, without, n)
						for i := range with {
							if math.Float64bits(with[i]) != math.Float64bits(without[i]) {
								t.Fatalf("%v tA=%v beta=%v: c[%d] = %v with the edge kernel, %v without", s, tA, beta, i, with[i], without[i])
							}
						}
					}
				}
			}
		})
	}
}

func TestDgemm(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, s := range shapes {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, pad := range []int{0, 3} {
						for _, alpha := range []float64{1, -0.5, 0} {
							for _, beta := range []float64{0, 1, 0.7} {
								checkDgemm(t, rng, dcase{tA, tB, s[0], s[1], s[2], pad, alpha, beta})
							}
						}
					}
				}
			}
		}
	})
}

// TestDgemmLarge crosses every block boundary (MC, KC, NC) and the
// parallel split along m and along n.
func TestDgemmLarge(t *testing.T) {
	big := [][3]int{{200, 70, 600}, {70, 200, 300}, {300, 90, 100}, {41, 3100, 20}}
	if testing.Short() {
		big = big[:3]
	}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for i, s := range big {
			tA, tB := i%2 == 1, i/2%2 == 1
			checkDgemm(t, rng, dcase{tA, tB, s[0], s[1], s[2], 1, 1.5, 0.5})
			checkDgemm(t, rng, dcase{!tA, !tB, s[0], s[1], s[2], 0, -1, 0})
		}
	})
}

type zcase struct {
	tA, tB      bool
	m, n, k     int
	pad         int
	alpha, beta complex128
}

func randCSlice(rng *rand.Rand, n int) []complex128 {
	s := make([]complex128, n)
	for i := range s {
		s[i] = complex(2*rng.Float64()-1, 2*rng.Float64()-1)
	}
	return s
}

func checkZgemm(t *testing.T, rng *rand.Rand, tc zcase) {
	t.Helper()
	ar, ac := dims(tc.tA, tc.m, tc.k)
	br, bc := dims(tc.tB, tc.k, tc.n)
	lda, ldb, ldc := max(ac+tc.pad, 1), max(bc+tc.pad, 1), max(tc.n+tc.pad, 1)
	a := randCSlice(rng, max(0, (ar-1)*lda+ac))
	b := randCSlice(rng, max(0, (br-1)*ldb+bc))
	var c []complex128
	if tc.m > 0 {
		c = make([]complex128, (tc.m-1)*ldc+tc.n)
	}
	for i := range c {
		switch {
		case i%ldc >= tc.n:
			c[i] = sentinel
		case tc.beta == 0:
			c[i] = cmplx.NaN()
		default:
			c[i] = complex(2*rng.Float64()-1, 2*rng.Float64()-1)
		}
	}
	want := append([]complex128(nil), c...)
	refZgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
	Zgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	tol := 1e-14 * float64(tc.k+4) * 4 * (cmplx.Abs(tc.alpha) + cmplx.Abs(tc.beta) + 1)
	for i := range c {
		if i%ldc >= tc.n {
			if c[i] != sentinel {
				t.Fatalf("%+v: wrote outside C at %d: %v", tc, i, c[i])
			}
			continue
		}
		if d := cmplx.Abs(c[i] - want[i]); !(d <= tol) {
			t.Fatalf("%+v: c[%d,%d] = %v, want %v", tc, i/ldc, i%ldc, c[i], want[i])
		}
	}
}

func TestZgemm(t *testing.T) {
	zshapes := append(shapes, [3]int{130, 40, 150}, [3]int{40, 130, 150})
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, s := range zshapes {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, pad := range []int{0, 2} {
						for _, alpha := range []complex128{1, complex(0.5, -1.5), 0} {
							for _, beta := range []complex128{0, 1, complex(-0.3, 0.8)} {
								checkZgemm(t, rng, zcase{tA, tB, s[0], s[1], s[2], pad, alpha, beta})
							}
						}
					}
				}
			}
		}
	})
}

func TestPanics(t *testing.T) {
	a := make([]float64, 12)
	for _, tc := range []struct {
		msg string
		f   func()
	}{
		{mLT0, func() { Dgemm(false, false, -1, 2, 2, 1, a, 2, a, 2, 0, a, 2) }},
		{nLT0, func() { Dgemm(false, false, 2, -1, 2, 1, a, 2, a, 2, 0, a, 2) }},
		{kLT0, func() { Dgemm(false, false, 2, 2, -1, 1, a, 2, a, 2, 0, a, 2) }},
		{badLdA, func() { Dgemm(false, false, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) }},
		{badLdA, func() { Dgemm(true, false, 3, 2, 2, 1, a, 2, a, 2, 0, a, 2) }},
		{badLdB, func() { Dgemm(false, false, 2, 3, 2, 1, a, 2, a, 2, 0, a, 3) }},
		{badLdB, func() { Dgemm(false, true, 2, 2, 3, 1, a, 3, a, 2, 0, a, 2) }},
		{badLdC, func() { Dgemm(false, false, 2, 3, 2, 1, a, 2, a, 3, 0, a, 2) }},
		{shortA, func() { Dgemm(false, false, 4, 2, 4, 1, a, 4, a, 2, 0, a, 2) }},
		{shortB, func() { Dgemm(false, false, 2, 2, 7, 1, make([]float64, 14), 7, a, 2, 0, a, 2) }},
		{shortC, func() { Dgemm(false, false, 7, 2, 1, 1, a, 1, a, 2, 0, a, 2) }},
		{shortC, func() {
			z := make([]complex128, 3)
			Zgemm(false, false, 2, 2, 1, 1, z, 1, z, 2, 0, z, 2)
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Errorf("panic %v, want %q", r, tc.msg)
				}
			}()
			tc.f()
		}()
	}
}

func FuzzDgemm(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(1), false, false, uint8(0), uint8(0), uint8(0), uint8(0))
	f.Add(uint8(9), uint8(25), uint8(17), true, false, uint8(1), uint8(1), uint8(1), uint8(1))
	f.Add(uint8(31), uint8(7), uint8(0), false, true, uint8(2), uint8(2), uint8(2), uint8(2))
	f.Add(uint8(64), uint8(50), uint8(33), true, true, uint8(0), uint8(3), uint8(0), uint8(0))
	f.Add(uint8(5), uint8(100), uint8(200), false, false, uint8(4), uint8(1), uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, m, n, k uint8, tA, tB bool, pad, alphaSel, betaSel, kernSel uint8) {
		ks := kernels()
		saved := kern
		defer func() { kern = saved }()
		kern = ks[int(kernSel)%len(ks)]
		alphas := []float64{1, -0.5, 0, 2.5}
		betas := []float64{0, 1, 0.7, -2}
		rng := rand.New(rand.NewPCG(uint64(m)<<16|uint64(n)<<8|uint64(k), 7))
		checkDgemm(t, rng, dcase{tA, tB, int(m) % 130, int(n) % 130, int(k), int(pad) % 5,
			alphas[int(alphaSel)%len(alphas)], betas[int(betaSel)%len(betas)]})
	})
}

// A small product on the direct path allocates nothing (the operands are not
// boxed as packers; the workspace comes from the pool), so that a batch of them
// (attention heads through tensor.GemmBatch) has no per-product allocation.
func TestDgemmDirectNoAlloc(t *testing.T) {
	if kern.name != "avx512_8x24" {
		t.Skipf("direct path needs the AVX-512 kernel, have %s", kern.name)
	}
	if race.Enabled {
		t.Skip("allocation counts under the race detector are not a normal build's (sync.Pool drops buffers)")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	const m, n, k = 128, 128, 64
	a, b, c := randSlice(rng, m*k), randSlice(rng, n*k), make([]float64, m*n)
	for _, tB := range []bool{false, true} {
		ldb := n
		if tB {
			ldb = k
		}
		if allocs := testing.AllocsPerRun(20, func() { DgemmOn(1, false, tB, m, n, k, 1, a, k, b, ldb, 0, c, n) }); allocs != 0 {
			t.Errorf("transB=%v: %v allocations per product, want 0", tB, allocs)
		}
	}
}

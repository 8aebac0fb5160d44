package gemm

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"
)

// withKernel32 runs f once for each float32 kernel available on this machine,
// with kern32 set to it.
func withKernel32(t *testing.T, f func(t *testing.T)) {
	saved := kern32
	defer func() { kern32 = saved }()
	for _, kn := range kernels32() {
		kern32 = kn
		t.Run(kn.name, f)
	}
}

// gamma is the classical bound γ_n = n u / (1 - n u) of the relative error of
// n chained float32 roundings (u = 2^-24).
func gamma(n int) float64 {
	const u = 0x1p-24
	return float64(n) * u / (1 - float64(n)*u)
}

func randSlice32(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(2*rng.Float64() - 1)
	}
	return s
}

func randCSlice64(rng *rand.Rand, n int) []complex64 {
	s := make([]complex64, n)
	for i := range s {
		s[i] = complex(float32(2*rng.Float64()-1), float32(2*rng.Float64()-1))
	}
	return s
}

// checkSgemm compares Sgemm with a float64 reference computed from the same
// float32 inputs. The bound is the classical one for a dot product accumulated
// in float32: every term of an element of C passes through at most k+4
// roundings (at most KC-1 additions in its block, one addition per later block,
// the product or FMA, the alpha scaling, the beta update and the conversion),
// so |C - C_ref| <= γ_{k+4} (|alpha| Σ_p |op(A)_ip||op(B)_pj| + |beta||C_ij|).
// A dropped, doubled or misplaced term gives an error of the order of
// |op(A)_ip op(B)_pj|, far above the bound.
func checkSgemm(t *testing.T, rng *rand.Rand, tc dcase) {
	t.Helper()
	ar, ac := dims(tc.tA, tc.m, tc.k)
	br, bc := dims(tc.tB, tc.k, tc.n)
	lda, ldb, ldc := max(ac+tc.pad, 1), max(bc+tc.pad, 1), max(tc.n+tc.pad, 1)
	a := randSlice32(rng, max(0, (ar-1)*lda+ac))
	b := randSlice32(rng, max(0, (br-1)*ldb+bc))
	var c []float32
	if tc.m > 0 {
		c = make([]float32, (tc.m-1)*ldc+tc.n)
	}
	for i := range c {
		switch {
		case i%ldc >= tc.n:
			c[i] = sentinel
		case tc.beta == 0:
			c[i] = float32(math.NaN())
		default:
			c[i] = float32(2*rng.Float64() - 1)
		}
	}
	alpha, beta := float32(tc.alpha), float32(tc.beta)
	c0 := append([]float32(nil), c...)
	Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, alpha, a, lda, b, ldb, beta, c, ldc)
	g := gamma(tc.k + 4)
	for i := range tc.m {
		for j := range tc.n {
			var s, abs float64
			for p := range tc.k {
				ai, bi := i*lda+p, p*ldb+j
				if tc.tA {
					ai = p*lda + i
				}
				if tc.tB {
					bi = j*ldb + p
				}
				s += float64(a[ai]) * float64(b[bi])
				abs += math.Abs(float64(a[ai]) * float64(b[bi]))
			}
			want := float64(alpha) * s
			bound := math.Abs(float64(alpha)) * abs
			if beta != 0 {
				want += float64(beta) * float64(c0[i*ldc+j])
				bound += math.Abs(float64(beta) * float64(c0[i*ldc+j]))
			}
			got := float64(c[i*ldc+j])
			if d := math.Abs(got - want); !(d <= g*bound+1e-30) {
				t.Fatalf("%v: c[%d,%d] = %v, want %v (error %.3g > bound %.3g)", tc, i, j, got, want, d, g*bound)
			}
		}
		for j := tc.n; j < ldc && i*ldc+j < len(c); j++ {
			if c[i*ldc+j] != sentinel {
				t.Fatalf("%v: wrote outside C at [%d,%d]: %v", tc, i, j, c[i*ldc+j])
			}
		}
	}
}

func TestSgemm(t *testing.T) {
	withKernel32(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, s := range append(shapes, [3]int{8, 48, 16}, [3]int{17, 49, 33}, [3]int{4, 24, 5}) {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, pad := range []int{0, 3} {
						for _, alpha := range []float64{1, -0.5, 0} {
							for _, beta := range []float64{0, 1, 0.7} {
								checkSgemm(t, rng, dcase{tA, tB, s[0], s[1], s[2], pad, alpha, beta})
							}
						}
					}
				}
			}
		}
	})
}

// TestSgemmLarge crosses every block boundary (MC, KC, NC) of the float32
// kernels and goes through the parallel driver.
func TestSgemmLarge(t *testing.T) {
	big := [][3]int{{400, 70, 600}, {70, 200, 300}, {300, 90, 100}, {41, 3100, 20}}
	if testing.Short() {
		big = big[:3]
	}
	withKernel32(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for i, s := range big {
			tA, tB := i%2 == 1, i/2%2 == 1
			checkSgemm(t, rng, dcase{tA, tB, s[0], s[1], s[2], 1, 1.5, 0.5})
			checkSgemm(t, rng, dcase{!tA, !tB, s[0], s[1], s[2], 0, -1, 0})
		}
	})
}

// checkCgemm compares Cgemm with a complex128 reference computed from the same
// complex64 inputs. Through the 1m embedding a component of an element of C is a
// real dot product of 2k terms of alpha*op(B) rounded to complex64 (with the
// complex kernel, the difference or sum of two dot products of k terms, a
// smaller error), bounded by
// 2 |alpha| Σ_p |op(A)_ip||op(B)_pj| (|x|+|y| <= 2|x+iy|); with the roundings
// of alpha*op(B), of beta*C and of the chain, |C - C_ref| <= 2 γ_{2k+8}
// (|alpha| Σ_p |op(A)_ip||op(B)_pj| + |beta||C_ij|).
func checkCgemm(t *testing.T, rng *rand.Rand, tc zcase) {
	t.Helper()
	ar, ac := dims(tc.tA, tc.m, tc.k)
	br, bc := dims(tc.tB, tc.k, tc.n)
	lda, ldb, ldc := max(ac+tc.pad, 1), max(bc+tc.pad, 1), max(tc.n+tc.pad, 1)
	a := randCSlice64(rng, max(0, (ar-1)*lda+ac))
	b := randCSlice64(rng, max(0, (br-1)*ldb+bc))
	var c []complex64
	if tc.m > 0 {
		c = make([]complex64, (tc.m-1)*ldc+tc.n)
	}
	for i := range c {
		switch {
		case i%ldc >= tc.n:
			c[i] = sentinel
		case tc.beta == 0:
			c[i] = complex64(cmplx.NaN())
		default:
			c[i] = complex(float32(2*rng.Float64()-1), float32(2*rng.Float64()-1))
		}
	}
	alpha, beta := complex64(tc.alpha), complex64(tc.beta)
	c0 := append([]complex64(nil), c...)
	Cgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, alpha, a, lda, b, ldb, beta, c, ldc)
	g := 2 * gamma(2*tc.k+8)
	absA, absB := make([]float64, len(a)), make([]float64, len(b))
	for i, v := range a {
		absA[i] = cmplx.Abs(complex128(v))
	}
	for i, v := range b {
		absB[i] = cmplx.Abs(complex128(v))
	}
	for i := range tc.m {
		for j := range tc.n {
			var s complex128
			var abs float64
			for p := range tc.k {
				ai, bi := i*lda+p, p*ldb+j
				if tc.tA {
					ai = p*lda + i
				}
				if tc.tB {
					bi = j*ldb + p
				}
				s += complex128(a[ai]) * complex128(b[bi])
				abs += absA[ai] * absB[bi]
			}
			want := complex128(alpha) * s
			bound := cmplx.Abs(complex128(alpha)) * abs
			if beta != 0 {
				want += complex128(beta) * complex128(c0[i*ldc+j])
				bound += cmplx.Abs(complex128(beta)) * cmplx.Abs(complex128(c0[i*ldc+j]))
			}
			got := complex128(c[i*ldc+j])
			if d := cmplx.Abs(got - want); !(d <= g*bound+1e-30) {
				t.Fatalf("%+v: c[%d,%d] = %v, want %v (error %.3g > bound %.3g)", tc, i, j, got, want, d, g*bound)
			}
		}
		for j := tc.n; j < ldc && i*ldc+j < len(c); j++ {
			if c[i*ldc+j] != sentinel {
				t.Fatalf("%+v: wrote outside C at [%d,%d]: %v", tc, i, j, c[i*ldc+j])
			}
		}
	}
}

func TestCgemm(t *testing.T) {
	zshapes := append(shapes, [3]int{130, 40, 150}, [3]int{40, 130, 150}, [3]int{200, 100, 300})
	withKernel32(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		for _, s := range zshapes {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, pad := range []int{0, 2} {
						for _, alpha := range []complex128{1, complex(0.5, -1.5), 0} {
							for _, beta := range []complex128{0, 1, complex(-0.3, 0.8)} {
								if s[0]*s[1]*s[2] > 1e6 && (pad > 0 || alpha == 0 || alpha == 1 || beta != 0 && beta != 1) {
									continue // the parallel shape twice per transpose pair is enough
								}
								checkCgemm(t, rng, zcase{tA, tB, s[0], s[1], s[2], pad, alpha, beta})
							}
						}
					}
				}
			}
		}
	})
}

// TestCgemmParallel checks Cgemm on products split over goroutines (m*2n*k at
// least parallelMin), with both parallel schemes and every float32 kernel (the
// complex kernel's packed A is twice as wide per row as its tile's): the
// results of 2 and 3 goroutines are the serial ones bit for bit, and the
// serial ones are within checkCgemm's bound.
func TestCgemmParallel(t *testing.T) {
	bothSchemes(t, func(t *testing.T) {
		withKernel32(t, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			for i, s := range [][3]int{{130, 150, 70}, {41, 700, 80}, {513, 37, 129}, {9, 400, 700}} {
				m, n, k := s[0], s[1], s[2]
				tA, tB := i%2 == 1, i/2%2 == 1
				checkCgemm(t, rng, zcase{tA, tB, m, n, k, i % 3, complex(0.5, -1.5), complex(-0.3, 0.8)})
				ar, ac := dims(tA, m, k)
				br, bc := dims(tB, k, n)
				a, b, c := randCSlice64(rng, ar*ac), randCSlice64(rng, br*bc), randCSlice64(rng, m*n)
				want := append([]complex64(nil), c...)
				CgemmOn(1, tA, tB, m, n, k, complex(0.5, -1), a, ac, b, bc, 1, want, n)
				for _, w := range []int{2, 3} {
					got := append([]complex64(nil), c...)
					CgemmOn(w, tA, tB, m, n, k, complex(0.5, -1), a, ac, b, bc, 1, got, n)
					for j := range got {
						if got[j] != want[j] {
							t.Fatalf("%v tA=%v tB=%v workers=%d: c[%d] = %v, serial %v", s, tA, tB, w, j, got[j], want[j])
						}
					}
				}
			}
		})
	})
}

// TestSgemmBitIdentical checks that Sgemm and Cgemm give the same bits on one
// goroutine and on several.
func TestSgemmBitIdentical(t *testing.T) {
	withKernel32(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(17, 18))
		for i, s := range parallelShapes {
			m, n, k := s[0], s[1], s[2]
			tA, tB := i%2 == 0, i/2%2 == 0
			pad := (i + 1) % 3
			ar, ac := dims(tA, m, k)
			br, bc := dims(tB, k, n)
			lda, ldb, ldc := ac+pad, bc+pad, n+pad
			a, b, c0 := randSlice32(rng, ar*lda), randSlice32(rng, br*ldb), randSlice32(rng, m*ldc)
			want := append([]float32(nil), c0...)
			SgemmOn(1, tA, tB, m, n, k, -0.75, a, lda, b, ldb, 0.5, want, ldc)
			for _, w := range []int{2, 5} {
				got := append([]float32(nil), c0...)
				SgemmOn(w, tA, tB, m, n, k, -0.75, a, lda, b, ldb, 0.5, got, ldc)
				for j := range got {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%v workers=%d: c[%d] = %v, serial %v", s, w, j, got[j], want[j])
					}
				}
			}
			if m*n*k > 4e7 {
				continue
			}
			za, zb, zc := randCSlice64(rng, ar*lda), randCSlice64(rng, br*ldb), randCSlice64(rng, m*ldc)
			zwant := append([]complex64(nil), zc...)
			CgemmOn(1, tA, tB, m, n, k, complex(0.5, 1), za, lda, zb, ldb, 0, zwant, ldc)
			CgemmOn(3, tA, tB, m, n, k, complex(0.5, 1), za, lda, zb, ldb, 0, zc, ldc)
			for j := range zc {
				if zc[j] != zwant[j] {
					t.Fatalf("Cgemm %v: c[%d] = %v, serial %v", s, j, zc[j], zwant[j])
				}
			}
		}
	})
}

func TestSgemmPanics(t *testing.T) {
	s := make([]float32, 12)
	z := make([]complex64, 3)
	for _, tc := range []struct {
		msg string
		f   func()
	}{
		{mLT0, func() { Sgemm(false, false, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{badLdA, func() { Sgemm(true, false, 3, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{shortC, func() { Sgemm(false, false, 7, 2, 1, 1, s, 1, s, 2, 0, s, 2) }},
		{shortC, func() { Cgemm(false, false, 2, 2, 1, 1, z, 1, z, 2, 0, z, 2) }},
		{badLdB, func() { Cgemm(false, true, 1, 1, 3, 1, z, 3, z, 2, 0, z, 1) }},
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

// BenchmarkSgemm measures Sgemm on square n x n products with every float32
// kernel available: GOMAXPROCS=1 (then 2) go test -bench 'Sgemm/1024' (not -cpu
// 1,2: see BenchmarkDgemm).
func BenchmarkSgemm(b *testing.B) {
	for _, n := range []int{256, 512, 1024, 2048} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randSlice32(rng, n*n), randSlice32(rng, n*n), randSlice32(rng, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		for i, kn := range kernels32() {
			name := fmt.Sprintf("%d/gemm", n)
			if i > 0 {
				name = fmt.Sprintf("%d/%s", n, kn.name)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				if n > 1024 && testing.Short() {
					b.Skip("n > 1024 in -short mode")
				}
				saved := kern32
				defer func() { kern32 = saved }()
				kern32 = kn
				for b.Loop() {
					Sgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
				}
				reportGFLOPs(b, flops)
			})
		}
	}
}

// BenchmarkCgemm measures Cgemm (8*n^3 real flops): go test -bench 'Cgemm/1024' -cpu 1.
func BenchmarkCgemm(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := randCSlice64(rng, n*n), randCSlice64(rng, n*n), randCSlice64(rng, n*n)
		b.Run(fmt.Sprintf("%d/gemm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Cgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, 8*float64(n)*float64(n)*float64(n))
		})
		// Both operands transposed and a complex alpha: the packing paths
		// that multiply by alpha and gather op(B)'s columns.
		b.Run(fmt.Sprintf("%d/TT", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Cgemm(true, true, n, n, n, complex(0.5, 1), x, n, y, n, 0, z, n)
			}
			reportGFLOPs(b, 8*float64(n)*float64(n)*float64(n))
		})
	}
}

// The float32 direct path (direct32) gives the results of the packed path bit
// for bit, with every transposition, for beta 0, 1 and other, alpha 1 and other,
// with padded strides: on the shapes of the float32 MLP's hidden layers (256 x
// 256 x 256, and 784 x 256 with k = 256), with a last column tile of 16 (n = 48 q
// + 16), k over two blocks (KC = 192), and B at the bound directMaxKN32 and over it.
func TestSgemmDirect(t *testing.T) {
	defer func() { directOff = false }()
	rng := rand.New(rand.NewPCG(9, 10))
	// The path is taken where it applies (with the AVX-512 kernel), and not for a
	// last column tile of 32.
	for _, n := range []int{48, 64, 32} {
		a, b, c := randSlice32(rng, 16*8), randSlice32(rng, 8*n), make([]float32, 16*n)
		taken := directRun(kern32, 16, n, 8, &realA[float32]{a: a, lda: 8}, &realB[float32]{b: b, ldb: n}, 1, 0, c, n)
		if want := kern32.name == "avx512_8x48" && n != 32; taken != want {
			t.Fatalf("n = %d: direct path taken: %v with kernel %s", n, taken, kern32.name)
		}
	}
	for _, s := range [][3]int{{256, 256, 256}, {784, 256, 256}, {256, 16, 784}, {8, 16, 5}, {16, 48, 7},
		{24, 64, 300}, {8, 112, 9}, {16, 256, 128}, {32, 32, 3}, {40, 208, 193}, {16, 256, 784}, {8, 256, 801}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, ab := range [][2]float32{{1, 0}, {1, 1}, {-1.25, 0.3}} {
					alpha, beta := ab[0], ab[1]
					ar, ac := dims(tA, m, k)
					br, bc := dims(tB, k, n)
					const pad = 3
					a, b := randSlice32(rng, ar*(ac+pad)), randSlice32(rng, br*(bc+pad))
					c0 := randSlice32(rng, m*(n+pad))
					with, without := slices.Clone(c0), slices.Clone(c0)
					directOff = false
					SgemmOn(1, tA, tB, m, n, k, alpha, a, ac+pad, b, bc+pad, beta, with, n+pad)
					directOff = true
					SgemmOn(1, tA, tB, m, n, k, alpha, a, ac+pad, b, bc+pad, beta, without, n+pad)
					for i := range with {
						if math.Float32bits(with[i]) != math.Float32bits(without[i]) {
							t.Fatalf("%v tA=%v tB=%v alpha=%v beta=%v: c[%d] = %v direct, %v packed", s, tA, tB, alpha, beta, i, with[i], without[i])
						}
					}
				}
			}
		}
	}
}

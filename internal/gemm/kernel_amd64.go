//go:build amd64 && !noasm

package gemm

import "golang.org/x/sys/cpu"

// kern8x24AVX512 is the 8x24 AVX-512F micro-kernel (see kernel.fn).
//
//go:noescape
func kern8x24AVX512(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kern8x24AVX512S is the 8x24 AVX-512F kernel on unpacked operands: A's element
// (r, p) at a[r*rsa+p*csa], B's row p at b[p*ldb:], strides in elements.
//
//go:noescape
func kern8x24AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)

// kern8x8AVX512S is the 8x8 AVX-512F edge kernel (see kernel.edge) with the
// strides of kern8x24AVX512S.
//
//go:noescape
func kern8x8AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)

// kern4x12AVX2 is the 4x12 AVX2+FMA micro-kernel (see kernel.fn).
//
//go:noescape
func kern4x12AVX2(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kern8x48AVX512 is the 8x48 float32 AVX-512F micro-kernel (see kernel.fn).
//
//go:noescape
func kern8x48AVX512(k int, a, b, c *float32, ldc int, alpha, beta float32)

// kern8x16AVX512 is the 8x16 float32 AVX-512F edge kernel (see kernel.edge):
// B's row p at b[p*ldb:].
//
//go:noescape
func kern8x16AVX512(k int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// kernC4x24AVX512 is the 4x24 complex64 AVX-512F micro-kernel (see kernel.fn
// and cavx512): C's 4 x 48 float32 tile from the packed A of cpanelA (8 values
// per k step) and B's interleaved complex rows (48 values per k step).
//
//go:noescape
func kernC4x24AVX512(k int, a, b, c *float32, ldc int, alpha, beta float32)

// kern4x24AVX2 is the 4x24 float32 AVX2+FMA micro-kernel (see kernel.fn).
//
//go:noescape
func kern4x24AVX2(k int, a, b, c *float32, ldc int, alpha, beta float32)

var (
	avx512 = &kernel[float64]{name: "avx512_8x24", mr: 8, nr: 24, mc: 96, kc: 256, nc: 3072, fn: fnAVX512, edge: edgeAVX512, edgeN: 8}
	avx2   = &kernel[float64]{name: "avx2_4x12", mr: 4, nr: 12, mc: 96, kc: 256, nc: 3072, fn: fnAVX2}

	// The float32 kernels have the float64 kernels' B rows in bytes (NR twice
	// as large). For the AVX-512 one, KC=192 (a 36 KiB B micro-panel, which
	// leaves room in a 48 KiB L1 for the A micro-panel) and MC=384 (288 KiB
	// packed A block) were about 4% faster than KC=256 (48 KiB B micro-panel)
	// and MC=192 at n=1024: 216 against 208 GFLOP/s of CPU time, mean of 48
	// products each, on a loaded Zen 5 core.
	// Its 8x16 edge kernel computes the last 16 (or fewer) columns of a C whose
	// width leaves them after the 48-wide tiles, as in an MLP's products with
	// n = 256 (5 tiles and 16 columns) and n = 10, instead of a whole 8x48 tile.
	avx512s = &kernel[float32]{name: "avx512_8x48", mr: 8, nr: 48, mc: 384, kc: 192, nc: 3072, fn: fnAVX512s, edge: edgeAVX512s, edgeN: 16}
	avx2s   = &kernel[float32]{name: "avx2_4x24", mr: 4, nr: 24, mc: 192, kc: 256, nc: 3072, fn: fnAVX2s}

	// cavx512 is the complex64 kernel of Cgemm when kern32 is avx512s. Its
	// tile is 4 complex rows by 24 complex columns (mr and nr count the rows
	// and float32 columns of C's real view); the packed A and B have the
	// layouts of avx512s's (8 and 48 values per k step), so the block sizes
	// are those of avx512s in bytes: MC = 192 complex rows (288 KiB of packed
	// A), KC = 192 complex steps (36 KiB B micro-panel).
	cavx512 = &kernel[float32]{name: "avx512_c4x24", mr: 4, nr: 48, mc: 192, kc: 192, nc: 3072, aw: 2, fn: fnAVX512c}
)

// complexKernel32 returns the complex64 kernel that goes with the float32
// kernel kn, or nil when Cgemm runs on kn itself through the 1m embedding.
func complexKernel32(kn *kernel[float32]) *kernel[float32] {
	if kn == avx512s {
		return cavx512
	}
	return nil
}

// scaleC64AVX512 multiplies the complex values of x[:n] (n a multiple of 16)
// by re + i im.
//
//go:noescape
func scaleC64AVX512(x *float32, n int, re, im float32)

// scaleC64Asm multiplies the complex values of s (interleaved parts) by alpha
// in whole vectors with AVX-512 and returns the number of float32 values done.
func scaleC64Asm(s []float32, alpha complex64) int {
	n := len(s) &^ 15
	if !cpu.X86.HasAVX512F || n == 0 {
		return 0
	}
	scaleC64AVX512(&s[0], n, real(alpha), imag(alpha))
	return n
}

func fnAVX512c(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	_, _, _ = a[8*k-1], b[48*k-1], c[3*ldc+47]
	kernC4x24AVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func fnAVX512s(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	_, _, _ = a[8*k-1], b[48*k-1], c[7*ldc+47]
	kern8x48AVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func edgeAVX512s(k int, a, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) {
	_, _, _ = a[8*k-1], b[(k-1)*ldb+15], c[7*ldc+15]
	kern8x16AVX512(k, &a[0], &b[0], ldb, &c[0], ldc, alpha, beta)
}

func fnAVX2s(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	_, _, _ = a[4*k-1], b[24*k-1], c[3*ldc+23]
	kern4x24AVX2(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func fnAVX512(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	_, _, _ = a[8*k-1], b[24*k-1], c[7*ldc+23]
	kern8x24AVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func edgeAVX512(k int, a, b []float64, ldb int, c []float64, ldc int, alpha, beta float64) {
	_, _, _ = a[8*k-1], b[(k-1)*ldb+7], c[7*ldc+7]
	kern8x8AVX512S(k, &a[0], 1, 8, &b[0], ldb, &c[0], ldc, alpha, beta)
}

func fnAVX2(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	_, _, _ = a[4*k-1], b[12*k-1], c[3*ldc+11]
	kern4x12AVX2(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func asmKernels() []*kernel[float64] { return usable(avx512, avx2) }

func asmKernels32() []*kernel[float32] { return usable(avx512s, avx2s) }

// usable returns the kernels of the two instruction sets that this CPU has,
// AVX-512 before AVX2 (with FMA).
func usable[R float](avx512, avx2 *kernel[R]) []*kernel[R] {
	var ks []*kernel[R]
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2)
	}
	return ks
}

//go:build amd64 && !noasm

package gemm

import "golang.org/x/sys/cpu"

// kern8x24AVX512 is the 8x24 AVX-512F micro-kernel (see kernel.fn).
//
//go:noescape
func kern8x24AVX512(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kern4x12AVX2 is the 4x12 AVX2+FMA micro-kernel (see kernel.fn).
//
//go:noescape
func kern4x12AVX2(k int, a, b, c *float64, ldc int, alpha, beta float64)

var (
	avx512 = &kernel{name: "avx512_8x24", mr: 8, nr: 24, mc: 96, kc: 256, nc: 3072, fn: fnAVX512}
	avx2   = &kernel{name: "avx2_4x12", mr: 4, nr: 12, mc: 96, kc: 256, nc: 3072, fn: fnAVX2}
)

func fnAVX512(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	_, _, _ = a[8*k-1], b[24*k-1], c[7*ldc+23]
	kern8x24AVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func fnAVX2(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	_, _, _ = a[4*k-1], b[12*k-1], c[3*ldc+11]
	kern4x12AVX2(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

func asmKernels() []*kernel {
	var ks []*kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2)
	}
	return ks
}

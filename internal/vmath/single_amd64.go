//go:build amd64 && !noasm

package vmath

import "golang.org/x/sys/cpu"

// The float32 assembly kernels (single_amd64.s). n is a positive multiple of 16
// (AVX-512) or 8 (AVX2); the constants come from consts32.

//go:noescape
func exp32AVX512(dst, x *float32, n int)

//go:noescape
func tanh32AVX512(dst, x *float32, n int)

//go:noescape
func sigmoid32AVX512(dst, x *float32, n int)

//go:noescape
func exp32AVX2(dst, x *float32, n int)

//go:noescape
func tanh32AVX2(dst, x *float32, n int)

//go:noescape
func sigmoid32AVX2(dst, x *float32, n int)

var (
	avx512f32 = &kernels32{name: "avx512", block: 16, exp: exp32AVX512, tanh: tanh32AVX512, sigmoid: sigmoid32AVX512}
	avx2f32   = &kernels32{name: "avx2", block: 8, exp: exp32AVX2, tanh: tanh32AVX2, sigmoid: sigmoid32AVX2}
)

func asmKernels32() []*kernels32 {
	var ks []*kernels32
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512f32)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2f32)
	}
	return ks
}

// expHalfBlocks32 does the whole blocks of 8 elements of a tail of Exp32 that the
// AVX-512 kernel (blocks of 16) left with the AVX2 kernel, when both are in use
// and available, and returns the number of elements done.
func expHalfBlocks32(dst, x []float32) int {
	n := len(dst) &^ 7
	if n == 0 || impl32 != avx512f32 || !(cpu.X86.HasAVX2 && cpu.X86.HasFMA) {
		return 0
	}
	exp32AVX2(&dst[0], &x[0], n)
	return n
}

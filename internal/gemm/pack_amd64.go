//go:build amd64 && !noasm

package gemm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

var hasAVX2 = cpu.X86.HasAVX2

// transpose8x8f32 packs blocks groups of 8 k steps of 8 float32 rows (row
// stride lda) as dst[p*stride + r] (see packRows8), with an AVX 8x8 transpose.
//
//go:noescape
func transpose8x8f32(dst *float32, stride int, src *float32, lda int, blocks int)

// packRows8Asm does the part of packRows8 it can in assembly (float32 with
// AVX2, whole groups of 8 k steps) and returns the number of k steps done.
// (A float64 version, an 8x4 transpose, was no faster than the Go loop.)
func packRows8Asm[R float](dst []R, stride int, a []R, off, lda, kb int) int {
	if unsafe.Sizeof(R(0)) != 4 || !hasAVX2 || kb < 8 {
		return 0
	}
	done := kb &^ 7
	_ = a[off+7*lda+done-1]
	_ = dst[stride*(done-1)+7]
	transpose8x8f32((*float32)(unsafe.Pointer(&dst[0])), stride, (*float32)(unsafe.Pointer(&a[off])), lda, done/8)
	return done
}

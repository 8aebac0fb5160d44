//go:build !amd64 || noasm

package vmath

// hasShift512 is false: this build has no assembly kernels.
var hasShift512 = false

func shiftAsm(nsrc, ndst int) bool { return false }

func shiftRows32Asm(dst []float32, dstStride, tapStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	panic("vmath: no assembly")
}

func shiftSum32Asm(dst []float32, dstStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	panic("vmath: no assembly")
}

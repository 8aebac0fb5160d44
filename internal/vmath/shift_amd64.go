//go:build amd64 && !noasm

package vmath

// shiftRows32AVX512 and shiftSum32AVX512 are ShiftRows32's and ShiftSum32's
// loops (shift_amd64.s) for taps >= 1 and ch >= 1: full chunks of 16, then a
// last chunk under the mask tail when tail != 0. Strides in bytes.
//
//go:noescape
func shiftRows32AVX512(dst *float32, dstStride, tapStride int, src *float32, srcStride int, off *int32, mask *uint16, taps, ch, full int, tail uint16)

//go:noescape
func shiftSum32AVX512(dst *float32, dstStride int, src *float32, srcStride int, off *int32, mask *uint16, taps, ch, full int, tail uint16)

// hasShift512 reports whether the AVX-512 loops run (tests switch it off).
var hasShift512 = hasGather512

// shiftAsm reports whether the assembly loops take a call: AVX-512, and
// slices short enough for 32-bit offsets.
func shiftAsm(nsrc, ndst int) bool {
	return hasShift512 && nsrc > 0 && ndst > 0 && nsrc < 1<<31 && ndst < 1<<31
}

func shiftTail(n int) uint16 { return uint16(1<<(n%16) - 1) }

func shiftRows32Asm(dst []float32, dstStride, tapStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	shiftRows32AVX512(&dst[0], 4*dstStride, 4*tapStride, &src[0], 4*srcStride, &off[0], &mask[0], len(off), ch, n/16, shiftTail(n))
}

func shiftSum32Asm(dst []float32, dstStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	shiftSum32AVX512(&dst[0], 4*dstStride, &src[0], 4*srcStride, &off[0], &mask[0], len(off), ch, n/16, shiftTail(n))
}

//go:build amd64 && !noasm

package vmath

import "golang.org/x/sys/cpu"

// gather32AVX512 gathers, for r < rows, the first n values of row r (n a positive
// multiple of 16): dst[r*dstStride + j] = src[idx[r*p + j]], and reports whether
// every index was below lim (it stops at the first block of 16 with one that is
// not, having loaded nothing for it). Strides in elements.
//
//go:noescape
func gather32AVX512(dst *float32, dstStride int, src *float32, idx *int32, rows, p, n, lim int) bool

var hasGather512 = cpu.X86.HasAVX512F

// gatherRowsAsm gathers the first p rounded down to a multiple of 16 values of
// each row with gather32AVX512 and returns how many values of each row it did (0
// without AVX-512). It panics for an index outside src, as GatherRows32's Go loop
// would.
func gatherRowsAsm(dst []float32, dstStride int, src []float32, idx []int32, rows, p int) int {
	n := p &^ 15
	if !hasGather512 || n == 0 || len(src) == 0 {
		return 0
	}
	if !gather32AVX512(&dst[0], dstStride, &src[0], &idx[0], rows, p, n, len(src)) {
		panic("vmath: GatherRows32: index out of range")
	}
	return n
}

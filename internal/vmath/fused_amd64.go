//go:build amd64 && !noasm

package vmath

import "golang.org/x/sys/cpu"

var fusedAVX2 = cpu.X86.HasAVX2

// avx2Blocks runs kern, an assembly kernel, on the whole blocks of width elements
// of a row of n, when the processor has AVX2 and the row has a whole block, and
// returns the number of elements done: the Go loop of the kernel's exported
// function does the rest. Every xxxBlocks wrapper of the AVX2 kernels is one call
// of it.
func avx2Blocks(n, width int, kern func(blocks int)) int {
	blocks := n / width
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	kern(blocks)
	return width * blocks
}

//go:noescape
func mul3AVX2(dst, a, b, d *float64, blocks int, c float64)

//go:noescape
func tanhBackwardAVX2(dst, y, gt *float64, blocks int)

//go:noescape
func tanhBackwardPullAVX2(gy, gg, v, y, gt *float64, blocks int)

// mul3Blocks does Mul3's whole blocks of 8 elements in assembly and returns the
// number of elements done (the slices have one length).
func mul3Blocks(dst, a, b, d []float64, c float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { mul3AVX2(&dst[0], &a[0], &b[0], &d[0], blocks, c) })
}

// tanhBackwardBlocks does TanhBackward's whole blocks of 8 elements in assembly.
func tanhBackwardBlocks(dst, y, g []float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { tanhBackwardAVX2(&dst[0], &y[0], &g[0], blocks) })
}

// tanhBackwardPullBlocks does TanhBackwardPull's whole blocks of 8 elements in
// assembly.
func tanhBackwardPullBlocks(gy, gg, v, y, g []float64) int {
	return avx2Blocks(len(gy), 8, func(blocks int) { tanhBackwardPullAVX2(&gy[0], &gg[0], &v[0], &y[0], &g[0], blocks) })
}

//go:noescape
func mul3PullAVX2(ga, gb, gd, a, b, d, w *float64, blocks int, c float64)

// mul3PullBlocks does Mul3Pull's whole blocks of 4 elements in assembly.
func mul3PullBlocks(ga, gb, gd, a, b, d, w []float64, c float64) int {
	return avx2Blocks(len(ga), 4, func(blocks int) { mul3PullAVX2(&ga[0], &gb[0], &gd[0], &a[0], &b[0], &d[0], &w[0], blocks, c) })
}

//go:noescape
func addAVX2(dst, a, b *float64, blocks int)

// addBlocks does Add's whole blocks of 8 elements in assembly.
func addBlocks(dst, a, b []float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { addAVX2(&dst[0], &a[0], &b[0], blocks) })
}

//go:noescape
func add32AVX2(dst, a, b *float32, blocks int)

// add32Blocks does Add32's whole blocks of 16 elements in assembly.
func add32Blocks(dst, a, b []float32) int {
	return avx2Blocks(len(dst), 16, func(blocks int) { add32AVX2(&dst[0], &a[0], &b[0], blocks) })
}

//go:noescape
func tanhPull32AVX2(dst, y, v *float32, blocks int)

//go:noescape
func tanhPullTangent32AVX2(xb, xbd, y, w, wd, xd *float32, blocks int)

// tanhPull32Blocks does TanhPull32's whole blocks of 8 elements in assembly.
func tanhPull32Blocks(dst, y, v []float32) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { tanhPull32AVX2(&dst[0], &y[0], &v[0], blocks) })
}

// tanhPullTangent32Blocks does TanhPullTangent32's whole blocks of 8 elements in
// assembly.
func tanhPullTangent32Blocks(xb, xbd, y, w, wd, xd []float32) int {
	return avx2Blocks(len(xb), 8, func(blocks int) { tanhPullTangent32AVX2(&xb[0], &xbd[0], &y[0], &w[0], &wd[0], &xd[0], blocks) })
}

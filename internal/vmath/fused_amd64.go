//go:build amd64 && !noasm

package vmath

import "golang.org/x/sys/cpu"

var fusedAVX2 = cpu.X86.HasAVX2

//go:noescape
func mul3AVX2(dst, a, b, d *float64, blocks int, c float64)

//go:noescape
func tanhBackwardAVX2(dst, y, gt *float64, blocks int)

//go:noescape
func tanhBackwardPullAVX2(gy, gg, v, y, gt *float64, blocks int)

// mul3Blocks does Mul3's whole blocks of 8 elements in assembly and returns the
// number of elements done (the slices have one length).
func mul3Blocks(dst, a, b, d []float64, c float64) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	mul3AVX2(&dst[0], &a[0], &b[0], &d[0], blocks, c)
	return 8 * blocks
}

// tanhBackwardBlocks does TanhBackward's whole blocks of 8 elements in assembly.
func tanhBackwardBlocks(dst, y, g []float64) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	tanhBackwardAVX2(&dst[0], &y[0], &g[0], blocks)
	return 8 * blocks
}

// tanhBackwardPullBlocks does TanhBackwardPull's whole blocks of 8 elements in
// assembly.
func tanhBackwardPullBlocks(gy, gg, v, y, g []float64) int {
	blocks := len(gy) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	tanhBackwardPullAVX2(&gy[0], &gg[0], &v[0], &y[0], &g[0], blocks)
	return 8 * blocks
}

//go:noescape
func mul3PullAVX2(ga, gb, gd, a, b, d, w *float64, blocks int, c float64)

// mul3PullBlocks does Mul3Pull's whole blocks of 4 elements in assembly.
func mul3PullBlocks(ga, gb, gd, a, b, d, w []float64, c float64) int {
	blocks := len(ga) / 4
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	mul3PullAVX2(&ga[0], &gb[0], &gd[0], &a[0], &b[0], &d[0], &w[0], blocks, c)
	return 4 * blocks
}

//go:noescape
func addAVX2(dst, a, b *float64, blocks int)

// addBlocks does Add's whole blocks of 8 elements in assembly.
func addBlocks(dst, a, b []float64) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	addAVX2(&dst[0], &a[0], &b[0], blocks)
	return 8 * blocks
}

//go:noescape
func add32AVX2(dst, a, b *float32, blocks int)

// add32Blocks does Add32's whole blocks of 16 elements in assembly.
func add32Blocks(dst, a, b []float32) int {
	blocks := len(dst) / 16
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	add32AVX2(&dst[0], &a[0], &b[0], blocks)
	return 16 * blocks
}

//go:noescape
func tanhPull32AVX2(dst, y, v *float32, blocks int)

//go:noescape
func tanhPullTangent32AVX2(xb, xbd, y, w, wd, xd *float32, blocks int)

// tanhPull32Blocks does TanhPull32's whole blocks of 8 elements in assembly.
func tanhPull32Blocks(dst, y, v []float32) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	tanhPull32AVX2(&dst[0], &y[0], &v[0], blocks)
	return 8 * blocks
}

// tanhPullTangent32Blocks does TanhPullTangent32's whole blocks of 8 elements in
// assembly.
func tanhPullTangent32Blocks(xb, xbd, y, w, wd, xd []float32) int {
	blocks := len(xb) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	tanhPullTangent32AVX2(&xb[0], &xbd[0], &y[0], &w[0], &wd[0], &xd[0], blocks)
	return 8 * blocks
}

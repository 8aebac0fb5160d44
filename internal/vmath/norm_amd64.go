//go:build amd64 && !noasm

package vmath

//go:noescape
func sumDevAVX2(x *float64, blocks int, mu float64, s *[32]float64)

//go:noescape
func normApplyAVX2(y, x, w, b *float64, blocks int, mu, rs float64)

//go:noescape
func normPullSumsAVX2(x, gt, w, wa, ba *float64, blocks int, mu, rs float64, s *[16]float64)

//go:noescape
func normPullBarAVX2(out, x, gt, w *float64, blocks int, mu, rs, mg, mgx float64)

// sumDevBlocks does SumDev's whole blocks of 16 elements in assembly (s zero on
// entry) and returns the number of elements done.
func sumDevBlocks(x []float64, mu float64, s *[32]float64) int {
	return avx2Blocks(len(x), 16, func(blocks int) { sumDevAVX2(&x[0], blocks, mu, s) })
}

// normApplyBlocks does NormApply's whole blocks of 8 elements in assembly (the
// slices have one length).
func normApplyBlocks(y, x, w, b []float64, mu, rs float64) int {
	return avx2Blocks(len(y), 8, func(blocks int) { normApplyAVX2(&y[0], &x[0], &w[0], &b[0], blocks, mu, rs) })
}

// normPullSumsBlocks does NormPullSums's whole blocks of 8 elements in assembly
// (s zero on entry).
func normPullSumsBlocks(x, g, w, wa, ba []float64, mu, rs float64, s *[16]float64) int {
	return avx2Blocks(len(x), 8, func(blocks int) { normPullSumsAVX2(&x[0], &g[0], &w[0], &wa[0], &ba[0], blocks, mu, rs, s) })
}

// normPullBarBlocks does NormPullBar's whole blocks of 8 elements in assembly.
func normPullBarBlocks(out, x, g, w []float64, mu, rs, mg, mgx float64) int {
	return avx2Blocks(len(out), 8, func(blocks int) { normPullBarAVX2(&out[0], &x[0], &g[0], &w[0], blocks, mu, rs, mg, mgx) })
}

//go:noescape
func sumDev32AVX2(x *float32, blocks int, mu float64, s *[32]float64)

//go:noescape
func normApply32AVX2(y, x, w, b *float32, blocks int, mu, rs float32)

//go:noescape
func normPullSums32AVX2(x, gt, w *float32, wa, ba *float64, blocks int, mu, rs float32, s *[16]float64)

//go:noescape
func normPullBar32AVX2(out, x, gt, w *float32, blocks int, mu, rs, mg, mgx float32)

//go:noescape
func dot32AVX2(x, y *float32, blocks int, s *[8]float64)

// sumDev32Blocks does SumDev32's whole blocks of 16 elements in assembly (s
// zero on entry).
func sumDev32Blocks(x []float32, mu float64, s *[32]float64) int {
	return avx2Blocks(len(x), 16, func(blocks int) { sumDev32AVX2(&x[0], blocks, mu, s) })
}

// normApply32Blocks does NormApply32's whole blocks of 8 elements in assembly.
func normApply32Blocks(y, x, w, b []float32, mu, rs float32) int {
	return avx2Blocks(len(y), 8, func(blocks int) { normApply32AVX2(&y[0], &x[0], &w[0], &b[0], blocks, mu, rs) })
}

// normPullSums32Blocks does NormPullSums32's whole blocks of 8 elements in
// assembly (s zero on entry).
func normPullSums32Blocks(x, g, w []float32, wa, ba []float64, mu, rs float32, s *[16]float64) int {
	return avx2Blocks(len(x), 8, func(blocks int) { normPullSums32AVX2(&x[0], &g[0], &w[0], &wa[0], &ba[0], blocks, mu, rs, s) })
}

// normPullBar32Blocks does NormPullBar32's whole blocks of 8 elements in
// assembly.
func normPullBar32Blocks(out, x, g, w []float32, mu, rs, mg, mgx float32) int {
	return avx2Blocks(len(out), 8, func(blocks int) { normPullBar32AVX2(&out[0], &x[0], &g[0], &w[0], blocks, mu, rs, mg, mgx) })
}

// dot32Blocks does Dot32's whole blocks of 8 elements in assembly (s zero on
// entry).
func dot32Blocks(x, y []float32, s *[8]float64) int {
	return avx2Blocks(len(x), 8, func(blocks int) { dot32AVX2(&x[0], &y[0], blocks, s) })
}

//go:noescape
func max32AVX2(x *float32, blocks int, m *[16]float32)

// max32Blocks does Max32's whole blocks of 16 elements in assembly (m holding
// the starting maxima).
func max32Blocks(x []float32, m *[16]float32) int {
	return avx2Blocks(len(x), 16, func(blocks int) { max32AVX2(&x[0], blocks, m) })
}

//go:build amd64 && !noasm

package vmath

//go:noescape
func mulAVX2(dst, a, b *float64, blocks int)

//go:noescape
func scaleAVX2(dst, x *float64, blocks int, c float64)

// mulBlocks does Mul's whole blocks of 8 elements in assembly and returns the
// number of elements done.
func mulBlocks(dst, a, b []float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { mulAVX2(&dst[0], &a[0], &b[0], blocks) })
}

// scaleBlocks does Scale's whole blocks of 8 elements in assembly.
func scaleBlocks(dst, x []float64, c float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { scaleAVX2(&dst[0], &x[0], blocks, c) })
}

//go:noescape
func negAVX2(dst, x *float64, blocks int)

//go:noescape
func indexEqAVX2(x *float64, blocks int, y float64) int

// negBlocks does Neg's whole blocks of 8 elements in assembly.
func negBlocks(dst, x []float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { negAVX2(&dst[0], &x[0], blocks) })
}

// indexEqBlocks returns the start of the first block of 8 elements that holds an
// element equal to y, found in assembly, or the number of elements in whole
// blocks when none does: IndexEq's loop goes on from there.
func indexEqBlocks(x []float64, y float64) int {
	blocks := len(x) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	return indexEqAVX2(&x[0], blocks, y)
}

//go:noescape
func axpyAVX2(y, x *float64, blocks int, s float64)

// axpyBlocks does Axpy's whole blocks of 8 elements in assembly.
func axpyBlocks(y []float64, s float64, x []float64) int {
	return avx2Blocks(len(y), 8, func(blocks int) { axpyAVX2(&y[0], &x[0], blocks, s) })
}

//go:noescape
func mulSumAVX2(dst, a, b *float64, blocks int, s *[8]float64)

//go:noescape
func scaleSumAVX2(dst, x *float64, blocks int, c float64, s *[8]float64)

// mulSumBlocks does MulSum's whole blocks of 8 elements in assembly, adding the
// products into s (zero on entry), and returns the number of elements done.
func mulSumBlocks(dst, a, b []float64, s *[8]float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { mulSumAVX2(&dst[0], &a[0], &b[0], blocks, s) })
}

// scaleSumBlocks does ScaleSum's whole blocks of 8 elements in assembly.
func scaleSumBlocks(dst, x []float64, c float64, s *[8]float64) int {
	return avx2Blocks(len(dst), 8, func(blocks int) { scaleSumAVX2(&dst[0], &x[0], blocks, c, s) })
}

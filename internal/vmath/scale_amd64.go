//go:build amd64 && !noasm

package vmath

//go:noescape
func mulAVX2(dst, a, b *float64, blocks int)

//go:noescape
func scaleAVX2(dst, x *float64, blocks int, c float64)

// mulBlocks does Mul's whole blocks of 8 elements in assembly and returns the
// number of elements done.
func mulBlocks(dst, a, b []float64) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	mulAVX2(&dst[0], &a[0], &b[0], blocks)
	return 8 * blocks
}

// scaleBlocks does Scale's whole blocks of 8 elements in assembly.
func scaleBlocks(dst, x []float64, c float64) int {
	blocks := len(dst) / 8
	if !fusedAVX2 || blocks == 0 {
		return 0
	}
	scaleAVX2(&dst[0], &x[0], blocks, c)
	return 8 * blocks
}

//go:build !amd64 || noasm

package vmath

// gatherRowsAsm does nothing without the assembly kernels: it reports 0 values
// of each row done.
func gatherRowsAsm(dst []float32, dstStride int, src []float32, idx []int32, rows, p int) int {
	return 0
}

//go:build !amd64 || noasm

package vmath

// hasGather512 is false: this build has no assembly kernels (tests switch it as
// they do on amd64).
var hasGather512 = false

// gatherRowsAsm does nothing without the assembly kernels: it reports 0 values
// of each row done.
func gatherRowsAsm(dst []float32, dstStride int, src []float32, idx []int32, rows, p int) int {
	return 0
}

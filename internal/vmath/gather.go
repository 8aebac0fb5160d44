package vmath

// GatherRows32 sets dst[r*dstStride + j] = src[idx[r*p + j]] for r < rows and j < p:
// rows gathered rows of p values (the columns of an im2col matrix). It panics, as
// an index expression would, when dst or idx is too short or an index is outside
// src; with AVX-512 the rows go 16 values at a time by VPGATHERDD (the indices
// checked in the same pass, 16 at a time), the rest element by element.
func GatherRows32(dst []float32, dstStride int, src []float32, idx []int32, rows, p int) {
	if rows <= 0 || p <= 0 {
		return
	}
	_, _ = dst[(rows-1)*dstStride+p-1], idx[rows*p-1]
	done := 0
	if p >= 16 && len(src) <= 1<<31-1 {
		done = gatherRowsAsm(dst, dstStride, src, idx, rows, p)
	}
	if done == p {
		return
	}
	for r := range rows {
		d, ir := dst[r*dstStride+done:r*dstStride+p], idx[r*p+done:r*p+p]
		for j, k := range ir {
			d[j] = src[k]
		}
	}
}

package vmath

// Products of two slices and of a slice and a scalar, for the pullbacks of the
// elementwise functions whose derivative is a stored value (exp's output y:
// xbar = y ybar) and for a cotangent broadcast from a sum (ybar_i = c). Each
// computes the same IEEE product per element in the assembly (AVX2, whole
// blocks of 8 elements) and in Go (the tail, and other platforms), so the results
// are bit-identical.

// Mul sets dst[i] = a[i] b[i]. a and b must be at least as long as dst; dst may
// be a or b.
func Mul(dst, a, b []float64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	i := mulBlocks(dst, a, b)
	for ; i < n; i++ {
		dst[i] = a[i] * b[i]
	}
}

// Scale sets dst[i] = x[i] c. x must be at least as long as dst; dst may be x.
func Scale(dst, x []float64, c float64) {
	n := len(dst)
	x = x[:n]
	i := scaleBlocks(dst, x, c)
	for ; i < n; i++ {
		dst[i] = x[i] * c
	}
}

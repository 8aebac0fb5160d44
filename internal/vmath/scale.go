package vmath

// Products of two slices and of a slice and a scalar, negation, and the search
// for an element equal to a value, for the pullbacks of the elementwise functions
// whose derivative is a stored value (exp's output y: xbar = y ybar) or a
// constant (scale, the subtrahend of a difference), and for the tie search of an
// extremum's pullback. Each computes the same IEEE operation per element in the
// assembly (AVX2, whole blocks of 8 elements) and in Go (the tail, and other
// platforms), so the results are bit-identical.

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

// Neg sets dst[i] = -x[i] (the sign bit flipped, as Go's unary minus). x must be
// at least as long as dst; dst may be x.
func Neg(dst, x []float64) {
	n := len(dst)
	x = x[:n]
	i := negBlocks(dst, x)
	for ; i < n; i++ {
		dst[i] = -x[i]
	}
}

// IndexEq returns the least i with x[i] == y, or -1 if there is none (always for
// a NaN y: IEEE equality).
func IndexEq(x []float64, y float64) int {
	i := indexEqBlocks(x, y)
	for ; i < len(x); i++ {
		if x[i] == y {
			return i
		}
	}
	return -1
}

// Axpy sets y[i] += s x[i], the product rounded before the sum (no fused
// multiply-add, as Go computes y[i] += s*x[i] on amd64). x must be at least as
// long as y.
func Axpy(y []float64, s float64, x []float64) {
	n := len(y)
	x = x[:n]
	i := axpyBlocks(y, s, x)
	for ; i < n; i++ {
		y[i] += s * x[i]
	}
}

package vmath

// Fused products for the derivatives of tanh (package elementwise's tanh_backward
// and mul3 ops): one pass each where the separate products and differences would
// be several. Each computes the same IEEE operations in the same order in the
// assembly (AVX2, 4 lanes, whole blocks of 8 elements) and in Go (the tail, and
// other platforms), so the results are bit-identical.

// Mul3 sets dst[i] = ((c a[i]) b[i]) d[i]. a, b and d must be at least as long as
// dst.
func Mul3(dst, a, b, d []float64, c float64) {
	n := len(dst)
	a, b, d = a[:n], b[:n], d[:n]
	i := mul3Blocks(dst, a, b, d, c)
	for ; i < n; i++ {
		dst[i] = c * a[i] * b[i] * d[i]
	}
}

// TanhBackward sets dst[i] = (1 - y[i]²) g[i], tanh's pullback at its output y for
// the cotangent g. y and g must be at least as long as dst.
func TanhBackward(dst, y, g []float64) {
	n := len(dst)
	y, g = y[:n], g[:n]
	i := tanhBackwardBlocks(dst, y, g)
	for ; i < n; i++ {
		dst[i] = (1 - y[i]*y[i]) * g[i]
	}
}

// TanhBackwardPull sets gy[i] = ((-2 y[i]) g[i]) v[i] and gg[i] = (1 - y[i]²) v[i]:
// the pullback of tanh_backward(y, g) for the cotangent v. gg, v, y and g must be
// at least as long as gy.
func TanhBackwardPull(gy, gg, v, y, g []float64) {
	n := len(gy)
	gg, v, y, g = gg[:n], v[:n], y[:n], g[:n]
	i := tanhBackwardPullBlocks(gy, gg, v, y, g)
	for ; i < n; i++ {
		a, b, w := y[i], g[i], v[i]
		gy[i] = (-2 * a * b) * w
		gg[i] = (1 - a*a) * w
	}
}

// Mul3Pull sets, for the cotangent w of y = c a b d, ga[i] = ((c b[i]) d[i]) w[i],
// gb[i] = ((c a[i]) d[i]) w[i] and gd[i] = ((c a[i]) b[i]) w[i] (Mul3 of the other
// two operands and w, each) in one pass: four slices read instead of nine. gb, gd,
// a, b, d and w must be at least as long as ga.
func Mul3Pull(ga, gb, gd, a, b, d, w []float64, c float64) {
	n := len(ga)
	gb, gd, a, b, d, w = gb[:n], gd[:n], a[:n], b[:n], d[:n], w[:n]
	i := mul3PullBlocks(ga, gb, gd, a, b, d, w, c)
	for ; i < n; i++ {
		ca, cb := c*a[i], c*b[i]
		ga[i] = cb * d[i] * w[i]
		gb[i] = ca * d[i] * w[i]
		gd[i] = ca * b[i] * w[i]
	}
}

// Add sets dst[i] = a[i] + b[i]; a and b must be at least as long as dst. It is
// the sum of two cotangents that reach one node of a backward sweep (tensor's
// Add and Accumulate on contiguous float64 values, where dst may be a).
func Add(dst, a, b []float64) { add(dst, a, b, addBlocks) }

// Add32 is Add for float32: dst[i] = a[i] + b[i], each sum rounded once; a and b
// must be at least as long as dst, and dst may be a or b. It is the float32 add of
// two operands of one shape, and each row of a bias add.
func Add32(dst, a, b []float32) { add(dst, a, b, add32Blocks) }

// add is Add in T: blocks does the assembly's whole blocks, the loop the rest.
func add[T float](dst, a, b []T, blocks func(dst, a, b []T) int) {
	n := len(dst)
	a, b = a[:n], b[:n]
	for i := blocks(dst, a, b); i < n; i++ {
		dst[i] = a[i] + b[i]
	}
}

// TanhPull32 sets dst[i] = ((1 - y[i]) (1 + y[i])) v[i] in float32: tanh's
// F'(x) v from its output y (1 - y is exact near ±1, where 1 - y² would cancel),
// its pullback (v = ybar) and forward tangent (v = xdot). y and v must be at least
// as long as dst.
func TanhPull32(dst, y, v []float32) {
	n := len(dst)
	y, v = y[:n], v[:n]
	i := tanhPull32Blocks(dst, y, v)
	for ; i < n; i++ {
		dst[i] = (1 - y[i]) * (1 + y[i]) * v[i]
	}
}

// TanhPullTangent32 is tanh's second-order pullback in float32 from its output y,
// for the cotangent w, its tangent wd and the input's tangent xd: with
// d = (1 - y)(1 + y) = F'(x) and F"(x) = -2 y d,
//
//	xb[i] = d w[i],   xbd[i] = d wd[i] + (((-2 y[i]) d) xd[i]) w[i].
//
// y, w, wd, xd and xbd must be at least as long as xb.
func TanhPullTangent32(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	xbd, y, w, wd, xd = xbd[:n], y[:n], w[:n], wd[:n], xd[:n]
	i := tanhPullTangent32Blocks(xb, xbd, y, w, wd, xd)
	for ; i < n; i++ {
		d := (1 - y[i]) * (1 + y[i])
		xb[i] = d * w[i]
		xbd[i] = d*wd[i] + -2*y[i]*d*xd[i]*w[i]
	}
}

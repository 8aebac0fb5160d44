package vmath

// Row kernels of the normalisations (package nn's layer_norm): the statistics of
// a row, its normalised output, and the two passes of the pullback, one each where
// separate products, sums and differences would take several. Each computes the
// same IEEE operations in the same order in the assembly (AVX2, whole blocks of 8
// or 16 elements) and in Go (the tail, other platforms, machines without AVX2), so
// the results are bit-identical; the sums go to partial sum i mod 8 (16 for
// SumDev) whichever code adds element i, and the partial sums are combined
// pairwise.

// SumDev returns sum(x[i] - mu) and sum((x[i] - mu)²), with sixteen partial sums
// each: with mu = 0 the sum of x, and with mu its mean the second pass of the
// variance, over the centred values, which stays accurate when the mean is large
// against the spread.
func SumDev(x []float64, mu float64) (sum, sumSq float64) {
	var s [32]float64
	i := sumDevBlocks(x, mu, &s)
	for ; i < len(x); i++ {
		d := x[i] - mu
		s[i&15] += d
		s[16+i&15] += d * d
	}
	return pairwise(s[:16]), pairwise(s[16:])
}

// NormApply sets y[i] = ((x[i] - mu) rs) w[i] + b[i]: the output of a
// normalisation with weight w and bias b along the row. x, w and b must be at
// least as long as y.
func NormApply(y, x, w, b []float64, mu, rs float64) { normApply(y, x, w, b, mu, rs, normApplyBlocks) }

// NormPullSums returns, for a row x with mean mu and inverse deviation rs, the
// cotangent g of the output and the weight w, with xhat = (x - mu) rs,
//
//	sum(g w)  and  sum((g w) xhat),
//
// eight partial sums each, and adds g[i] xhat[i] to wa[i] and g[i] to ba[i] (the
// weight's and the bias's cotangents): the first pass of the pullback. g, w, wa
// and ba must be at least as long as x.
func NormPullSums(x, g, w, wa, ba []float64, mu, rs float64) (sg, sgx float64) {
	n := len(x)
	g, w, wa, ba = g[:n], w[:n], wa[:n], ba[:n]
	var s [16]float64
	i := normPullSumsBlocks(x, g, w, wa, ba, mu, rs, &s)
	for ; i < n; i++ {
		h, gi := (x[i]-mu)*rs, g[i]
		wa[i] += gi * h
		ba[i] += gi
		gw := gi * w[i]
		s[i&7] += gw
		s[8+i&7] += gw * h
	}
	return pairwise(s[:8]), pairwise(s[8:])
}

// NormPullBar sets out[i] = rs ((w[i] g[i] - mg) - ((x[i] - mu) rs) mgx): the
// second pass of the pullback, the input's cotangent, with mg and mgx the means
// of g w and (g w) xhat. x, g and w must be at least as long as out.
func NormPullBar(out, x, g, w []float64, mu, rs, mg, mgx float64) {
	normPullBar(out, x, g, w, mu, rs, mg, mgx, normPullBarBlocks)
}

// float is the element types of the kernels that have a float64 and a float32
// form doing the same operations in each precision (NormApply and NormApply32,
// NormPullBar and NormPullBar32, Add and Add32): one generic Go loop does the
// elements the assembly of either leaves, after the assembly's blocks (a
// function value: the generic loop is inlined into each exported function,
// which calls its own assembly directly). SumDev and NormPullSums keep a loop
// per precision: their partial sums, passed to the assembly by pointer, would
// move to the heap if the generic loop called the assembly through a function
// value.
type float interface{ float32 | float64 }

// normApply is NormApply in T after blocks' whole blocks.
func normApply[T float](y, x, w, b []T, mu, rs T, blocks func(y, x, w, b []T, mu, rs T) int) {
	n := len(y)
	x, w, b = x[:n], w[:n], b[:n]
	for i := blocks(y, x, w, b, mu, rs); i < n; i++ {
		y[i] = (x[i]-mu)*rs*w[i] + b[i]
	}
}

// normPullBar is NormPullBar in T after blocks' whole blocks.
func normPullBar[T float](out, x, g, w []T, mu, rs, mg, mgx T, blocks func(out, x, g, w []T, mu, rs, mg, mgx T) int) {
	n := len(out)
	x, g, w = x[:n], g[:n], w[:n]
	for i := blocks(out, x, g, w, mu, rs, mg, mgx); i < n; i++ {
		out[i] = rs * (w[i]*g[i] - mg - (x[i]-mu)*rs*mgx)
	}
}

// pairwise returns the sum of the 8 or 16 partial sums s, added pairwise:
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) for 8, and the sums of the two halves so
// for 16.
func pairwise(s []float64) float64 {
	if len(s) == 16 {
		return pairwise(s[:8]) + pairwise(s[8:])
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// SumDev32 is SumDev for float32 x: each element widened exactly, the
// differences, squares and sums in float64.
func SumDev32(x []float32, mu float64) (sum, sumSq float64) {
	var s [32]float64
	i := sumDev32Blocks(x, mu, &s)
	for ; i < len(x); i++ {
		d := float64(x[i]) - mu
		s[i&15] += d
		s[16+i&15] += d * d
	}
	return pairwise(s[:16]), pairwise(s[16:])
}

// NormApply32 is NormApply in float32: y[i] = ((x[i] - mu) rs) w[i] + b[i],
// each operation rounded to float32.
func NormApply32(y, x, w, b []float32, mu, rs float32) {
	normApply(y, x, w, b, mu, rs, normApply32Blocks)
}

// NormPullSums32 is NormPullSums for float32 rows: xhat, g xhat and g w in
// float32, and the sums and the cotangents wa and ba of the weight and bias in
// float64.
func NormPullSums32(x, g, w []float32, wa, ba []float64, mu, rs float32) (sg, sgx float64) {
	n := len(x)
	g, w, wa, ba = g[:n], w[:n], wa[:n], ba[:n]
	var s [16]float64
	i := normPullSums32Blocks(x, g, w, wa, ba, mu, rs, &s)
	for ; i < n; i++ {
		h, gi := (x[i]-mu)*rs, g[i]
		wa[i] += float64(gi * h)
		ba[i] += float64(gi)
		gw := gi * w[i]
		s[i&7] += float64(gw)
		s[8+i&7] += float64(gw * h)
	}
	return pairwise(s[:8]), pairwise(s[8:])
}

// NormPullBar32 is NormPullBar in float32: out[i] = rs ((w[i] g[i] - mg) -
// ((x[i] - mu) rs) mgx), each operation rounded to float32.
func NormPullBar32(out, x, g, w []float32, mu, rs, mg, mgx float32) {
	normPullBar(out, x, g, w, mu, rs, mg, mgx, normPullBar32Blocks)
}

// Dot32 returns sum(x[i] y[i]), each product rounded to float32 and added in
// float64 to partial sum i mod 8, the partial sums combined pairwise. y must be
// at least as long as x.
func Dot32(x, y []float32) float64 {
	y = y[:len(x)]
	var s [8]float64
	i := dot32Blocks(x, y, &s)
	for ; i < len(x); i++ {
		s[i&7] += float64(x[i] * y[i])
	}
	return pairwise(s[:])
}

// Max32 returns the largest element of the non-empty x when none is NaN (any
// element, NaN or not, when one is): sixteen running maxima m[i mod 16] =
// (m > x[i]) ? m : x[i], the rule of the vector max instruction, started from
// x[0] and combined in order. It is the shift of a float32 softmax, which needs
// no NaN of its own: a NaN in a row makes the row's sum of exponentials NaN.
func Max32(x []float32) float32 {
	var m [16]float32
	for k := range m {
		m[k] = x[0]
	}
	i := max32Blocks(x, &m)
	for ; i < len(x); i++ {
		if !(m[i&15] > x[i]) {
			m[i&15] = x[i]
		}
	}
	r := m[0]
	for _, v := range m[1:] {
		if !(r > v) {
			r = v
		}
	}
	return r
}

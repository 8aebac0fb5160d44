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
func NormApply(y, x, w, b []float64, mu, rs float64) {
	n := len(y)
	x, w, b = x[:n], w[:n], b[:n]
	for i := normApplyBlocks(y, x, w, b, mu, rs); i < n; i++ {
		y[i] = (x[i]-mu)*rs*w[i] + b[i]
	}
}

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
	n := len(out)
	x, g, w = x[:n], g[:n], w[:n]
	for i := normPullBarBlocks(out, x, g, w, mu, rs, mg, mgx); i < n; i++ {
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

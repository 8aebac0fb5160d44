package vmath

// Products summed in the pass that makes them, for pullbacks that hand the sum of
// their cotangent along with it (chainrules.SumPullbackRule): exp's pullback
// xbar_i = y_i ybar_i, whose sum the difference x - max(x) before it needs. Each
// returns exactly Sum(dst) after Mul or Scale, bit for bit: the products go into
// Sum's eight running totals (element i into total i mod 8 in whole blocks of 8,
// the tail into the first), combined as Sum combines them.

// MulSum sets dst[i] = a[i] b[i], as Mul does, and returns Sum(dst). a and b must
// be at least as long as dst; dst may be a or b.
func MulSum(dst, a, b []float64) float64 {
	n := len(dst)
	a, b = a[:n], b[:n]
	var s [8]float64
	i := mulSumBlocks(dst, a, b, &s)
	for ; i+8 <= n; i += 8 {
		d, x, y := dst[i:i+8:i+8], a[i:i+8:i+8], b[i:i+8:i+8]
		for l := range 8 {
			v := float64(x[l] * y[l]) // rounded: never fused into the sum
			d[l] = v
			s[l] += v
		}
	}
	for ; i < n; i++ {
		v := float64(a[i] * b[i])
		dst[i] = v
		s[0] += v
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// ScaleSum sets dst[i] = x[i] c, as Scale does, and returns Sum(dst). x must be
// at least as long as dst; dst may be x.
func ScaleSum(dst, x []float64, c float64) float64 {
	n := len(dst)
	x = x[:n]
	var s [8]float64
	i := scaleSumBlocks(dst, x, c, &s)
	for ; i+8 <= n; i += 8 {
		d, y := dst[i:i+8:i+8], x[i:i+8:i+8]
		for l := range 8 {
			v := float64(y[l] * c)
			d[l] = v
			s[l] += v
		}
	}
	for ; i < n; i++ {
		v := float64(x[i] * c)
		dst[i] = v
		s[0] += v
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

package vmath

// Sum returns the sum of x, added with eight running totals combined pairwise at the
// end. One total would run the loop at the latency of one addition per element;
// eight cover the latency of the two add ports. The order of the additions is fixed,
// so every package that sums through here rounds the same way.
func Sum[T float64 | complex128](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// Sum32 returns the sum of the float32 x accumulated in float64: Sum of x widened,
// bit for bit (the same eight totals in the same order), without the widened copy.
func Sum32(x []float32) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += float64(v[0])
		s1 += float64(v[1])
		s2 += float64(v[2])
		s3 += float64(v[3])
		s4 += float64(v[4])
		s5 += float64(v[5])
		s6 += float64(v[6])
		s7 += float64(v[7])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

package vmath

import "math"

// Dot returns sum_i x[i] y[i] over len(x) elements (y at least as long). Element i
// is fused-multiply-added (one rounding) into partial sum i mod 32, and the partial
// sums s are combined as t_l = (s_l + s_{8+l}) + (s_{16+l} + s_{24+l}) for l < 8,
// u_l = t_l + t_{4+l}, v_l = u_l + u_{2+l}, v_0 + v_1: the order of the AVX-512 and
// AVX2 kernels, so that every implementation gives the same bits. In cache it runs
// at the machine's load bandwidth (two vectors a cycle), about 8x a scalar loop.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s [32]float64
	n := dotBlocks(x, y, &s)
	for i := n; i < len(x); i++ {
		s[i&31] = math.FMA(x[i], y[i], s[i&31])
	}
	var t [8]float64
	for l := range t {
		t[l] = (s[l] + s[8+l]) + (s[16+l] + s[24+l])
	}
	u0, u1, u2, u3 := t[0]+t[4], t[1]+t[5], t[2]+t[6], t[3]+t[7]
	return (u0 + u2) + (u1 + u3)
}

package lapack

import "math"

// zlarfg generates LAPACK's zlarfg reflector for the vector (alpha, x_1, ...,
// x_{n-1}) stored at x[0], x[inc], ..., x[(n-1)inc]: H = I - tau v v^H, v = (1,
// v_1, ...), with H^H (alpha, x) = beta e_1, beta real. It overwrites x_k with v_k
// and leaves x[0] to the caller.
func zlarfg(x []complex128, n, inc int) (beta float64, tau complex128) {
	alpha := x[0]
	xnorm := 0.0
	if n > 1 {
		xnorm = Cnrm2(x[inc:], n-1, inc)
	}
	ar, ai := real(alpha), imag(alpha)
	if xnorm == 0 && ai == 0 {
		return ar, 0
	}
	beta = -math.Copysign(math.Hypot(math.Hypot(ar, ai), xnorm), ar)
	tau = complex((beta-ar)/beta, -ai/beta)
	s := 1 / (alpha - complex(beta, 0))
	for k := 1; k < n; k++ {
		x[k*inc] *= s
	}
	return beta, tau
}

// Cnrm2 is the Euclidean norm of the n elements x[0], x[inc], ..., scaled against
// overflow (BLAS's dznrm2).
func Cnrm2(x []complex128, n, inc int) float64 {
	scale := 0.0
	for k := range n {
		v := x[k*inc]
		scale = math.Max(scale, math.Max(math.Abs(real(v)), math.Abs(imag(v))))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	ss := 0.0
	for k := range n {
		r, i := real(x[k*inc])/scale, imag(x[k*inc])/scale
		ss += r*r + i*i
	}
	return scale * math.Sqrt(ss)
}

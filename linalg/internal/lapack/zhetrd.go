package lapack

import "math/cmplx"

// hetrdLower reduces the Hermitian n×n matrix a (both triangles set) to real
// symmetric tridiagonal form T = Q^H A Q, as LAPACK's zhetd2 with uplo = Lower: d
// and e receive T's diagonal and subdiagonal, and Q = H_0 H_1 ... H_{n-2} with
// H_i = I - tau_i v_i v_i^H acting on rows i+1..n-1, v_i (v_i[0] = 1) returned.
// The trailing matrix is kept whole (both triangles) by the rank-2 updates; a is
// clobbered.
func hetrdLower(a []complex128, n int, d, e []float64, tau []complex128) [][]complex128 {
	refl := make([][]complex128, n-1)
	x := make([]complex128, n)
	for i := range n - 1 {
		m := n - i - 1 // rows i+1..n-1
		v := make([]complex128, m)
		for r := range m {
			v[r] = a[(i+1+r)*n+i]
		}
		beta, ti := zlarfg(v, m, 1)
		v[0] = 1
		e[i], tau[i], refl[i] = beta, ti, v
		d[i] = real(a[i*n+i])
		if ti == 0 {
			continue
		}
		// x = tau A22 v, w = x - tau/2 (x^H v) v, A22 -= v w^H + w v^H.
		xs := x[:m]
		for r := range m {
			row := a[(i+1+r)*n+i+1 : (i+1+r)*n+n]
			var s complex128
			for c, vc := range v {
				s += row[c] * vc
			}
			xs[r] = ti * s
		}
		var xv complex128
		for r := range m {
			xv += cmplx.Conj(xs[r]) * v[r]
		}
		alpha := -0.5 * ti * xv
		for r := range m {
			xs[r] += alpha * v[r]
		}
		for r := range m {
			row := a[(i+1+r)*n+i+1 : (i+1+r)*n+n]
			vr, wr := v[r], xs[r]
			for c := range m {
				row[c] -= vr*cmplx.Conj(xs[c]) + wr*cmplx.Conj(v[c])
			}
			row[r] = complex(real(row[r]), 0)
		}
	}
	d[n-1] = real(a[n*n-1])
	return refl
}

// applyReflector overwrites rows off..off+len(v)-1 of the n×n matrix m with
// H m, H = I - tau v v^H; s is scratch of length n.
func applyReflector(m []complex128, n, off int, v []complex128, tau complex128, s []complex128) {
	if tau == 0 {
		return
	}
	clear(s)
	for r, vr := range v { // s = v^H M
		c := cmplx.Conj(vr)
		row := m[(off+r)*n : (off+r+1)*n]
		for j, x := range row {
			s[j] += c * x
		}
	}
	for r, vr := range v { // M -= tau v s
		f := tau * vr
		row := m[(off+r)*n : (off+r+1)*n]
		for j := range row {
			row[j] -= f * s[j]
		}
	}
}

package lapack

import "math/cmplx"

// QRComplex computes the reduced QR decomposition of the m×n complex matrix a
// (row-major, clobbered): Q (m×k) into q and R (k×n) into r, k = min(m, n). It is
// LAPACK's unblocked ZGEQR2 and ZUNG2R: the reflectors H_i = I - tau_i v_i v_i^H
// of zlarfg, which makes R's diagonal real, beta = -sign(Re alpha) ||(alpha, x)||
// (so that, as in LAPACK and PyTorch, the signs follow the sign of the real part
// of the pivot column's leading entry), applied as H_i^H from the left, and
// Q = H_1 H_2 ... H_k formed backwards from the identity.
func QRComplex(a []complex128, m, n int, q, r []complex128) {
	k := min(m, n)
	tau := make([]complex128, k)
	for i := range k {
		// The reflector of the column (alpha, x) = a[i:m, i]: a[i, i] = beta and
		// a[i+1:m, i] = v[1:] (v[0] = 1), H^H (alpha, x) = (beta, 0).
		beta, ti := zlarfg(a[i*n+i:], m-i, n)
		a[i*n+i], tau[i] = complex(beta, 0), ti
		if i+1 < n {
			// A(i:m, i+1:n) = H_i^H A(i:m, i+1:n), H_i^H = I - conj(tau_i) v v^H.
			qrLarfLeft(a, n, i, m, i+1, n, cmplx.Conj(tau[i]), a, n, i)
		}
	}
	for i := range k {
		for j := range n {
			if j >= i {
				r[i*n+j] = a[i*n+j]
			} else {
				r[i*n+j] = 0
			}
		}
	}
	// ZUNG2R on the m×k matrix whose columns hold the reflectors (below the
	// diagonal), copied into q.
	for i := range m {
		for j := range k {
			q[i*k+j] = a[i*n+j]
		}
	}
	for i := k - 1; i >= 0; i-- {
		if i+1 < k {
			q[i*k+i] = 1
			qrLarfLeft(q, k, i, m, i+1, k, tau[i], q, k, i)
		}
		for l := i + 1; l < m; l++ {
			q[l*k+i] *= -tau[i]
		}
		q[i*k+i] = 1 - tau[i]
		for l := range i {
			q[l*k+i] = 0
		}
	}
}

// qrLarfLeft applies I - tau v v^H from the left to the block rows r0:r1, columns
// c0:c1 of c (leading dimension ldc), where v = (1, vd[r0+1:r1, vc]) is stored in
// column vc of vd (leading dimension ldv) below row r0 (LAPACK's zlarf, side L).
func qrLarfLeft(c []complex128, ldc, r0, r1, c0, c1 int, tau complex128, vd []complex128, ldv, vc int) {
	if tau == 0 {
		return
	}
	v := func(l int) complex128 {
		if l == r0 {
			return 1
		}
		return vd[l*ldv+vc]
	}
	w := make([]complex128, c1-c0) // w = C^H v, used as w^H = v^H C
	for l := r0; l < r1; l++ {
		vl := cmplx.Conj(v(l))
		row := c[l*ldc+c0 : l*ldc+c1]
		for j, x := range row {
			w[j] += vl * x
		}
	}
	for l := r0; l < r1; l++ {
		f := tau * v(l)
		row := c[l*ldc+c0 : l*ldc+c1]
		for j := range row {
			row[j] -= f * w[j]
		}
	}
}

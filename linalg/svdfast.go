package linalg

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
)

// The SVD for larger matrices (LAPACK's xGESVDX path): A = Q_U B Q_V^T by blocked
// Householder bidiagonalisation (xGEBRD, matrix products on tensor.Gemm), the
// singular values and vectors of the upper bidiagonal B from the symmetric
// tridiagonal Golub-Kahan matrix
//
//	TGK = tridiag(0; d_1, e_1, d_2, e_2, ..., d_n),
//
// whose eigenvalues are ±s_i with eigenvectors (v_1, u_1, v_2, u_2, ...)/sqrt(2)
// (B v = s u, B^T u = s v): dqds for the values (of each unreduced block's
// bidiagonal), inverse iteration for the vectors (as symEigTridiag), and the
// reflectors applied to the vectors in compact WY form. The vectors of B are
// checked (U_B^T U_B = I, V_B^T V_B = I and B V_B = U_B S to a few hundred ulps;
// the orthogonal Q_U and Q_V, backward stable, change these by rounding only);
// matrices with zero or tiny singular values, where the Golub-Kahan vectors do
// not separate, and any check that fails, fall back to gonum's Dgesvd.

// svdSmall is the size (min(m, n)) up to which svdKernel uses Dgesvd directly;
// svdValuesSmall the same without vectors (Dgesvd's unblocked Dgebd2 and
// svdValuesFast take about as long at 128, Dgesvd 1.6 times longer at 256).
const (
	svdSmall       = 48
	svdValuesSmall = 128
)

// svdFast computes the thin SVD of the m×n matrix a (not modified) into s, u
// (m×k) and vt (k×n), k = min(m, n), and reports success.
func svdFast(a []float64, m, n int, s, u, vt []float64) bool {
	if m < n {
		// A^T = U' S V'^T: U = V', Vh = U'^T.
		at := make([]float64, m*n)
		transposeInto(at, a, m, n)
		up := make([]float64, n*m) // n×m
		vpt := make([]float64, m*m)
		if !svdTall(at, n, m, s, up, vpt) {
			return false
		}
		transposeInto(u, vpt, m, m) // V' = (V'^T)^T
		transposeInto(vt, up, n, m) // U'^T
		return true
	}
	return svdTall(slices.Clone(a), m, n, s, u, vt)
}

// svdValuesFast computes the singular values (descending, into s) of the m×n
// matrix a (not modified) as LAPACK's xGESDD does without vectors: the blocked
// bidiagonalisation gebrdUpper (of A^T when m < n) and the dqds algorithm on the
// bidiagonal matrix (gonum's Dbdsqr without vectors, which is Dlasq1). Like
// xGESVD it first scales A by a power of two (exactly) when its largest entry is
// outside [sqrt(safmin)/eps, eps/sqrt(safmin)], where the products of the
// reduction could overflow or lose accuracy to underflow. It reports success.
func svdValuesFast(a []float64, m, n int, s []float64) bool {
	var w []float64
	if m < n {
		w = make([]float64, m*n)
		transposeInto(w, a, m, n)
		m, n = n, m
	} else {
		w = slices.Clone(a)
	}
	const (
		smlnum = 0x1p-484 // about sqrt(safmin)/eps, as xGESVD's
		bignum = 0x1p484
	)
	anrm := maxAbsSlice(w)
	if math.IsInf(anrm, 0) {
		return false
	}
	exp := 0 // A is scaled by 2^exp
	switch {
	case anrm == 0:
		clear(s[:n])
		return true
	case anrm > bignum:
		exp = math.Ilogb(bignum) - math.Ilogb(anrm) - 1
	case anrm < smlnum:
		exp = math.Ilogb(smlnum) - math.Ilogb(anrm)
	}
	if exp != 0 {
		for i := range w {
			w[i] = math.Ldexp(w[i], exp)
		}
	}
	d, e := make([]float64, n), make([]float64, n)
	tauq, taup := make([]float64, n), make([]float64, n)
	gebrdUpper(w, n, m, n, d, e[:n-1], tauq, taup)
	if !lapackGonum.Dbdsqr(blas.Upper, n, 0, 0, 0, d, e, nil, 1, nil, 1, nil, 1, make([]float64, 4*n)) {
		return false
	}
	for i := range n {
		s[i] = math.Ldexp(d[i], -exp)
	}
	return true
}

// svdTall is svdFast for m >= n; a is clobbered.
func svdTall(a []float64, m, n int, s, u, vt []float64) bool {
	d := make([]float64, n)
	e := make([]float64, n-1)
	tauq := make([]float64, n)
	taup := make([]float64, n)
	gebrdUpper(a, n, m, n, d, e, tauq, taup)

	// The Golub-Kahan tridiagonal matrix.
	t := make([]float64, 2*n-1)
	for i := range n {
		t[2*i] = d[i]
		if i < n-1 {
			t[2*i+1] = e[i]
		}
	}
	big := 0.0
	for _, v := range t {
		big = math.Max(big, math.Abs(v))
	}
	if big == 0 || math.IsNaN(big) || math.IsInf(big, 0) {
		return false
	}
	const eps = 0x1p-53
	zero := make([]float64, 2*n)
	// Split where an entry is negligible; every block must have even size (an odd
	// one has a zero singular value).
	var blocks [][2]int
	start := 0
	for i, v := range t {
		if math.Abs(v) <= eps*big {
			t[i] = 0
			blocks = append(blocks, [2]int{start, i + 1})
			start = i + 1
		}
	}
	blocks = append(blocks, [2]int{start, 2 * n})
	type sv struct {
		v     float64
		block int
	}
	var svs []sv
	for bi, b := range blocks {
		if (b[1]-b[0])%2 != 0 {
			return false
		}
		// The block's eigenvalues are ± the singular values of the bidiagonal
		// matrix with diagonal t[b0], t[b0+2], ... and superdiagonal t[b0+1],
		// t[b0+3], ...: dqds (Dlasq1, descending) on that matrix.
		k := (b[1] - b[0]) / 2
		bd, be := make([]float64, k), make([]float64, k)
		for i := range k {
			bd[i] = t[b[0]+2*i]
			if i < k-1 {
				be[i] = t[b[0]+2*i+1]
			}
		}
		if lapackGonum.Dlasq1(k, bd, be, make([]float64, 4*k)) != 0 {
			return false
		}
		for i := k - 1; i >= 0; i-- {
			svs = append(svs, sv{bd[i], bi})
		}
	}
	sort.SliceStable(svs, func(i, j int) bool { return svs[i].v > svs[j].v })
	smax := svs[0].v
	for i, v := range svs {
		// Tiny singular values: the ±s eigenvectors of TGK do not separate.
		if !(v.v > 1e3*float64(n)*eps*smax) {
			return false
		}
		s[i] = v.v
	}
	// Eigenvectors of TGK for +s: row j of zt (n×2n) for s[j].
	zt := make([]float64, 2*n*n)
	for bi, b := range blocks {
		var vals []float64
		var cols []int
		for j := len(svs) - 1; j >= 0; j-- { // ascending for stein
			if svs[j].block == bi {
				vals = append(vals, svs[j].v)
				cols = append(cols, j)
			}
		}
		if !stein(zero[b[0]:b[1]], t[b[0]:b[1]-1], vals, zt, 2*n, b[0], cols) {
			return false
		}
	}
	// Split into V_B (even entries) and U_B (odd entries), each column normalised:
	// the rows of ubt and vbt, transposed into ub and vb.
	ubt := make([]float64, n*n)
	vbt := make([]float64, n*n)
	for j := range n {
		zj := zt[j*2*n : (j+1)*2*n]
		nu, nv := 0.0, 0.0
		for k := range n {
			vk, uk := zj[2*k], zj[2*k+1]
			nv += vk * vk
			nu += uk * uk
		}
		nu, nv = 1/math.Sqrt(nu), 1/math.Sqrt(nv)
		for k := range n {
			vbt[j*n+k] = zj[2*k] * nv
			ubt[j*n+k] = zj[2*k+1] * nu
		}
	}
	ub := make([]float64, m*n) // [U_B; 0]
	vb := make([]float64, n*n)
	transposeInto(ub[:n*n], ubt, n, n)
	transposeInto(vb, vbt, n, n)
	if !bidiagCheck(d, e, s, ub, vb, n) {
		return false
	}
	// U = Q_U [U_B; 0], V = Q_V V_B.
	applyReflectors(ub, n, m, n, a, n, n, 0, tauq, true, false)
	applyReflectors(vb, n, n, n, a, n, n-1, 1, taup, false, false)
	copy(u, ub)
	transposeInto(vt, vb, n, n)
	return true
}

// bidiagCheck verifies U_B^T U_B = I, V_B^T V_B = I and B V_B = U_B diag(s) for
// the n×n upper bidiagonal B (diagonal d, superdiagonal e) to the tolerances of
// svdCheck. The Gram matrices are computed on the row blocks of their lower block
// triangle (half of a matrix product each), B V_B in O(n^2).
func bidiagCheck(d, e, s, ub, vb []float64, n int) bool {
	tol := 500 * float64(n) * 0x1p-53
	g := make([]float64, n*n)
	for _, q := range [][]float64{ub, vb} {
		clear(g)
		const rb = 64
		for r0 := 0; r0 < n; r0 += rb {
			h := min(rb, n-r0)
			gemm(true, false, h, r0+h, n, 1, q[r0:], n, q, n, 0, g[r0*n:], n)
		}
		for i := range n {
			g[i*n+i]--
		}
		if maxAbsSlice(g) > tol {
			return false
		}
	}
	worst := 0.0
	for i := range n {
		vi, ui := vb[i*n:(i+1)*n], ub[i*n:(i+1)*n]
		var vn []float64
		if i < n-1 {
			vn = vb[(i+1)*n : (i+2)*n]
		}
		for j := range n {
			r := d[i]*vi[j] - ui[j]*s[j]
			if vn != nil {
				r += e[i] * vn[j]
			}
			if a := math.Abs(r); a > worst || math.IsNaN(a) {
				if math.IsNaN(a) {
					return false
				}
				worst = a
			}
		}
	}
	return worst <= tol*s[0]
}

// svdCheck verifies U^T U = I, Vh Vh^T = I and A Vh^T = U diag(s) to 500 ulps of
// the scale of each.
func svdCheck(a []float64, m, n int, s, u, vt []float64) bool {
	k := n
	tol := 500 * float64(max(m, n)) * 0x1p-53
	g := make([]float64, k*k)
	gemm(true, false, k, k, m, 1, u, k, u, k, 0, g, k)
	for i := range k {
		g[i*k+i]--
	}
	if maxAbsSlice(g) > tol {
		return false
	}
	gemm(false, true, k, k, n, 1, vt, n, vt, n, 0, g, k)
	for i := range k {
		g[i*k+i]--
	}
	if maxAbsSlice(g) > tol {
		return false
	}
	r := make([]float64, m*k)
	gemm(false, true, m, k, n, 1, a, n, vt, n, 0, r, k)
	for i := range m {
		for j := range k {
			r[i*k+j] -= u[i*k+j] * s[j]
		}
	}
	return maxAbsSlice(r) <= tol*s[0]
}

func maxAbsSlice(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > m || math.IsNaN(a) {
			m = a
			if math.IsNaN(a) {
				return math.Inf(1)
			}
		}
	}
	return m
}

// applyReflectors overwrites the rows×cols matrix z (leading dimension ldz) with
// Q z, Q = H_0 H_1 ... H_{k-1}, or with Q^T z when trans is set, for the
// Householder reflectors H_i = I - tau_i v_i v_i^T stored in a (leading dimension
// lda): v_i[g] = 0 for g < i+off, 1 at g = i+off, and for g > i+off a[g, i] when
// inCols (reflectors in columns below the diagonal, as xGEQRF's and xGEBRD's Q) or
// a[i, g] otherwise (in rows, as xGEBRD's P). Blocks of nb reflectors are applied
// in the compact WY form I - V T V^T (LAPACK's xLARFT and xLARFB): three matrix
// products each.
func applyReflectors(z []float64, ldz, rows, cols int, a []float64, lda, k, off int, tau []float64, inCols, trans bool) {
	const nb = 32
	if k <= 0 || cols == 0 {
		return
	}
	blk := reflectorBlock{v: make([]float64, rows*nb), t: make([]float64, nb*nb), w: make([]float64, nb*cols),
		w2: make([]float64, nb*cols), col: make([]float64, nb), vtv: make([]float64, nb*nb)}
	last := ((k - 1) / nb) * nb
	if trans { // Q^T z = H_{k-1} ... H_0 z: the first block first.
		for j0 := 0; j0 <= last; j0 += nb {
			blk.apply(z, ldz, rows, cols, a, lda, j0, min(nb, k-j0), off, tau, inCols, true)
		}
		return
	}
	for j0 := last; j0 >= 0; j0 -= nb { // Q z: the last block first.
		blk.apply(z, ldz, rows, cols, a, lda, j0, min(nb, k-j0), off, tau, inCols, false)
	}
}

// reflectorBlock holds the scratch space of applyReflectors.
type reflectorBlock struct{ v, t, w, w2, col, vtv []float64 }

// apply applies the block of reflectors j0..j0+kb-1: z -= V T V^T z, or
// z -= V T^T V^T z when trans is set.
func (b *reflectorBlock) apply(z []float64, ldz, rows, cols int, a []float64, lda, j0, kb, off int, tau []float64, inCols, trans bool) {
	first := j0 + off
	m := rows - first
	if m <= 0 {
		return
	}
	v := b.v[:m*kb]
	for r := range m {
		g := first + r
		for c := range kb {
			i := j0 + c
			switch {
			case g < i+off:
				v[r*kb+c] = 0
			case g == i+off:
				v[r*kb+c] = 1
			case inCols:
				v[r*kb+c] = a[g*lda+i]
			default:
				v[r*kb+c] = a[i*lda+g]
			}
		}
	}
	// T upper triangular: T[c, c] = tau_c, T[:c, c] = -tau_c T[:c, :c] (V[:, :c]^T v_c),
	// with the products V^T V from one matrix product.
	t := b.t[:kb*kb]
	clear(t)
	vtv := b.vtv[:kb*kb]
	gemm(true, false, kb, kb, m, 1, v, kb, v, kb, 0, vtv, kb)
	for c := range kb {
		tc := tau[j0+c]
		t[c*kb+c] = tc
		if c == 0 || tc == 0 {
			continue
		}
		cc := b.col[:c]
		for i := range c {
			cc[i] = vtv[i*kb+c]
		}
		for i := range c {
			acc := 0.0
			for l := i; l < c; l++ {
				acc += t[i*kb+l] * cc[l]
			}
			t[i*kb+c] = -tc * acc
		}
	}
	zs := z[first*ldz:]
	w, w2 := b.w[:kb*cols], b.w2[:kb*cols]
	gemm(true, false, kb, cols, m, 1, v, kb, zs, ldz, 0, w, cols)
	gemm(trans, false, kb, cols, kb, 1, t, kb, w, cols, 0, w2, cols)
	gemm(false, false, m, cols, kb, -1, v, kb, w2, cols, 1, zs, ldz)
}

// gebrdUpper reduces the m×n matrix a (m >= n, leading dimension lda) to upper
// bidiagonal form Q^T A P = B as LAPACK's Dgebrd: d and e receive B's diagonal and
// superdiagonal; the left reflectors (v_i[i] = 1, v_i[i+1:] in column i below the
// diagonal) and the right ones (u_i[i+1] = 1, u_i[i+2:] in row i right of the
// superdiagonal) remain in a with their scales tauq and taup. Panels of nb columns
// are reduced by labrd and the trailing matrix then takes
// A -= V Y^T + X U^T = [V X] [Y U^T]^T as one matrix product (k = 2nb). Half of
// the flops are labrd's two matrix-vector products with the trailing matrix for
// each column (gemvT and gemvN along its rows), half the matrix products.
func gebrdUpper(a []float64, lda, m, n int, d, e, tauq, taup []float64) {
	const nb = 32
	pb := min(n, 2*nb)               // the widest panel
	pw := make([]float64, 2*pb*m)    // the panel's columns and X, transposed
	yt := make([]float64, pb*n)      // Y, transposed
	right := make([]float64, 2*nb*n) // [Y^T; U]
	scr := newLabrdScratch(pb)
	i0 := 0
	for ; n-i0 > 2*nb; i0 += nb {
		mm, nn := m-i0, n-i0
		sub := a[i0*lda+i0:]
		labrd(sub, lda, mm, nn, nb, d[i0:], e[i0:], tauq[i0:], taup[i0:], pw, yt, scr)
		// A22 -= A[nb:, :nb] Y[nb:, :]^T + X[nb:, :] A[:nb, nb:]: the left factor
		// [V^T; X^T] is pw's rows from column nb on, the right one [Y^T; U].
		mt, nt := mm-nb, nn-nb
		for k := range nb {
			copy(right[k*nt:(k+1)*nt], yt[k*nn+nb:(k+1)*nn])
			copy(right[(nb+k)*nt:(nb+k+1)*nt], sub[k*lda+nb:k*lda+nn])
		}
		gemm(true, false, mt, nt, 2*nb, -1, pw[nb:], mm, right, nt, 1, sub[nb*lda+nb:], lda)
		for j := range nb {
			sub[j*lda+j] = d[i0+j]
			sub[j*lda+j+1] = e[i0+j]
		}
	}
	mm, nn := m-i0, n-i0
	sub := a[i0*lda+i0:]
	labrd(sub, lda, mm, nn, nn, d[i0:], e[i0:], tauq[i0:], taup[i0:], pw, yt, scr)
}

// labrdScratch holds labrd's work vectors.
type labrdScratch struct{ t1, t2, c1, c2 []float64 }

func newLabrdScratch(nb int) *labrdScratch {
	return &labrdScratch{t1: make([]float64, nb+1), t2: make([]float64, nb+1), c1: make([]float64, nb+1), c2: make([]float64, nb+1)}
}

// labrd reduces the first nb rows and columns of the m×n matrix a (m >= n) as
// LAPACK's Dlabrd: the left and right reflectors of each step are generated from
// the column and row updated by the panel's earlier steps, and X (m×nb) and Y
// (n×nb) accumulate so that the trailing matrix is A - V Y^T - X U^T. The panel's
// columns (rows i >= column c) are worked on transposed in the rows 0..nb-1 of pw
// (leading dimension m) and copied back at the end; X^T is left in pw's rows
// nb..2nb-1 and Y^T in yt (leading dimension n), so that every matrix-vector
// product runs along contiguous rows. The unit entries of the reflectors are left
// in place (a[i, i] and a[i, i+1]).
func labrd(a []float64, lda, m, n, nb int, d, e, tauq, taup, pw, yt []float64, scr *labrdScratch) {
	pc := pw[:nb*m]         // pc[c*m+r] = A[r, c] for r >= c
	xt := pw[nb*m : 2*nb*m] // xt[c*m+r] = X[r, c]
	for r := range m {
		row := a[r*lda : r*lda+min(r+1, nb)]
		for c, v := range row {
			pc[c*m+r] = v
		}
	}
	for i := range nb {
		col := pc[i*m+i : i*m+m] // A[i:, i]
		// A[i:, i] -= A[i:, :i] Y[i, :i]^T + X[i:, :i] A[:i, i].
		if i > 0 {
			c1, c2 := scr.c1[:i], scr.c2[:i]
			for c := range i {
				c1[c] = yt[c*n+i]
				c2[c] = a[c*lda+i]
			}
			gemvT(i, m-i, -1, pc[i:], m, c1, col)
			gemvT(i, m-i, -1, xt[i:], m, c2, col)
		}
		// Left reflector of A[i:, i].
		mv := m - i
		beta, tq := lapackGonum.Dlarfg(mv, col[0], col[min(1, mv-1):], 1)
		d[i], tauq[i] = beta, tq
		if i >= n-1 {
			col[0] = beta
			continue
		}
		col[0] = 1
		v := col
		nt := n - i - 1
		// Y[i+1:, i] = tauq (A[i:, i+1:]^T v - Y[i+1:, :i] (A[i:, :i]^T v) - A[:i, i+1:]^T (X[i:, :i]^T v)).
		yc := yt[i*n+i+1 : i*n+n]
		clear(yc)
		gemvT(mv, nt, 1, a[i*lda+i+1:], lda, v, yc)
		if i > 0 {
			t1, t2 := scr.t1[:i], scr.t2[:i]
			clear(t1)
			clear(t2)
			gemvN(i, mv, 1, pc[i:], m, v, t1, 1)
			gemvN(i, mv, 1, xt[i:], m, v, t2, 1)
			gemvT(i, nt, -1, yt[i+1:], n, t1, yc)
			gemvT(i, nt, -1, a[i+1:], lda, t2, yc)
		}
		for j := range yc {
			yc[j] *= tq
		}
		// A[i, i+1:] -= Y[i+1:, :i+1] A[i, :i+1]^T + A[:i, i+1:]^T X[i, :i]^T.
		row := a[i*lda+i+1 : i*lda+n]
		c1, c2 := scr.c1[:i+1], scr.c2[:i]
		for c := range i + 1 {
			c1[c] = pc[c*m+i]
		}
		for c := range i {
			c2[c] = xt[c*m+i]
		}
		gemvT(i+1, nt, -1, yt[i+1:], n, c1, row)
		gemvT(i, nt, -1, a[i+1:], lda, c2, row)
		// Right reflector of A[i, i+1:].
		beta, tp := lapackGonum.Dlarfg(nt, row[0], row[min(1, nt-1):], 1)
		e[i], taup[i] = beta, tp
		row[0] = 1
		// X[i+1:, i] = taup (A[i+1:, i+1:] u - A[i+1:, :i+1] (Y[i+1:, :i+1]^T u) - X[i+1:, :i] (A[:i, i+1:] u)).
		mx := m - i - 1
		xc := xt[i*m+i+1 : i*m+m]
		clear(xc)
		gemvN(mx, nt, 1, a[(i+1)*lda+i+1:], lda, row, xc, 1)
		t3, t4 := scr.t1[:i+1], scr.t2[:i]
		clear(t3)
		clear(t4)
		gemvN(i+1, nt, 1, yt[i+1:], n, row, t3, 1)
		gemvN(i, nt, 1, a[i+1:], lda, row, t4, 1)
		gemvT(i+1, mx, -1, pc[i+1:], m, t3, xc)
		gemvT(i, mx, -1, xt[i+1:], m, t4, xc)
		for j := range xc {
			xc[j] *= tp
		}
	}
	// The panel's columns back into a (rows r >= c; above, the right reflectors).
	for r := range m {
		row := a[r*lda : r*lda+min(r+1, nb)]
		for c := range row {
			row[c] = pc[c*m+r]
		}
	}
}

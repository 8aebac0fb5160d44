package linalg

import (
	"math"
	"slices"
	"sort"
)

// The SVD for larger matrices (LAPACK's xGESVDX path): A = Q_U B Q_V^T by blocked
// Householder bidiagonalisation (xGEBRD, matrix products on tensor.Gemm), the
// singular values and vectors of the upper bidiagonal B from the symmetric
// tridiagonal Golub-Kahan matrix
//
//	TGK = tridiag(0; d_1, e_1, d_2, e_2, ..., d_n),
//
// whose eigenvalues are ±s_i with eigenvectors (v_1, u_1, v_2, u_2, ...)/sqrt(2)
// (B v = s u, B^T u = s v): Dsterf for the eigenvalues, inverse iteration for the
// vectors (as symEigTridiag), and the reflectors applied to the vectors in compact
// WY form. The result is checked (U^T U = I, V^T V = I and A V = U S to a few
// hundred ulps); matrices with zero or tiny singular values, where the Golub-Kahan
// vectors do not separate, and any check that fails, fall back to gonum's Dgesvd.

// svdSmall is the size (min(m, n)) up to which svdKernel uses Dgesvd directly.
const svdSmall = 48

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

// svdTall is svdFast for m >= n; a is clobbered.
func svdTall(a []float64, m, n int, s, u, vt []float64) bool {
	orig := slices.Clone(a)
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
		bd := make([]float64, b[1]-b[0])
		be := slices.Clone(t[b[0] : b[1]-1])
		if !lapackGonum.Dsterf(len(bd), bd, be) {
			return false
		}
		// Dsterf sorts ascending: the upper half are the singular values.
		for _, v := range bd[len(bd)/2:] {
			svs = append(svs, sv{v, bi})
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
	// Eigenvectors of TGK for +s: column j of z (2n×n) for s[j].
	z := make([]float64, 2*n*n)
	for bi, b := range blocks {
		var vals []float64
		var cols []int
		for j := len(svs) - 1; j >= 0; j-- { // ascending for stein
			if svs[j].block == bi {
				vals = append(vals, svs[j].v)
				cols = append(cols, j)
			}
		}
		if !stein(zero[b[0]:b[1]], t[b[0]:b[1]-1], vals, z, n, b[0], cols) {
			return false
		}
	}
	// Split into V_B (even rows) and U_B (odd rows), each column normalised.
	ub := make([]float64, m*n) // [U_B; 0]
	vb := make([]float64, n*n)
	for j := range n {
		nu, nv := 0.0, 0.0
		for k := range n {
			vk, uk := z[(2*k)*n+j], z[(2*k+1)*n+j]
			nv += vk * vk
			nu += uk * uk
		}
		nu, nv = 1/math.Sqrt(nu), 1/math.Sqrt(nv)
		for k := range n {
			vb[k*n+j] = z[(2*k)*n+j] * nv
			ub[k*n+j] = z[(2*k+1)*n+j] * nu
		}
	}
	// U = Q_U [U_B; 0], V = Q_V V_B.
	applyReflectors(ub, n, m, n, a, n, n, 0, tauq, true, false)
	applyReflectors(vb, n, n, n, a, n, n-1, 1, taup, false, false)
	copy(u, ub)
	transposeInto(vt, vb, n, n)
	return svdCheck(orig, m, n, s, u, vt)
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
		w2: make([]float64, nb*cols), col: make([]float64, nb)}
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
type reflectorBlock struct{ v, t, w, w2, col []float64 }

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
	// T upper triangular: T[c, c] = tau_c, T[:c, c] = -tau_c T[:c, :c] (V[:, :c]^T v_c).
	t := b.t[:kb*kb]
	clear(t)
	for c := range kb {
		tc := tau[j0+c]
		t[c*kb+c] = tc
		if c == 0 || tc == 0 {
			continue
		}
		cc := b.col[:c]
		clear(cc)
		for r := range m {
			if vc := v[r*kb+c]; vc != 0 {
				level1.Daxpy(c, vc, v[r*kb:r*kb+c], 1, cc, 1)
			}
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
// A -= V Y^T + X U^T as two matrix products.
func gebrdUpper(a []float64, lda, m, n int, d, e, tauq, taup []float64) {
	const nb = 32
	x := make([]float64, m*nb)
	y := make([]float64, n*nb)
	i0 := 0
	for ; n-i0 > 2*nb; i0 += nb {
		mm, nn := m-i0, n-i0
		sub := a[i0*lda+i0:]
		labrd(sub, lda, mm, nn, nb, d[i0:], e[i0:], tauq[i0:], taup[i0:], x, nb, y, nb)
		// A22 -= A[nb:, :nb] Y[nb:, :]^T + X[nb:, :] A[:nb, nb:].
		c := sub[nb*lda+nb:]
		gemm(false, true, mm-nb, nn-nb, nb, -1, sub[nb*lda:], lda, y[nb*nb:], nb, 1, c, lda)
		gemm(false, false, mm-nb, nn-nb, nb, -1, x[nb*nb:], nb, sub[nb:], lda, 1, c, lda)
		for j := range nb {
			sub[j*lda+j] = d[i0+j]
			sub[j*lda+j+1] = e[i0+j]
		}
	}
	mm, nn := m-i0, n-i0
	sub := a[i0*lda+i0:]
	xs := make([]float64, mm*nn)
	ys := make([]float64, nn*nn)
	labrd(sub, lda, mm, nn, nn, d[i0:], e[i0:], tauq[i0:], taup[i0:], xs, nn, ys, nn)
}

// labrd reduces the first nb rows and columns of the m×n matrix a (m >= n) as
// LAPACK's Dlabrd: the left and right reflectors of each step are generated from
// the column and row updated by the panel's earlier steps, and X (m×nb, ldx) and
// Y (n×nb, ldy) accumulate so that the trailing matrix is A - V Y^T - X U^T. The
// unit entries of the reflectors are left in place (a[i, i] and a[i, i+1]).
func labrd(a []float64, lda, m, n, nb int, d, e, tauq, taup, x []float64, ldx int, y []float64, ldy int) {
	vbuf := make([]float64, m)
	tmp := make([]float64, nb+1)
	tmp2 := make([]float64, nb+1)
	colAbove := make([]float64, nb)
	for i := range nb {
		// A[i:, i] -= A[i:, :i] Y[i, :i]^T + X[i:, :i] A[:i, i].
		if i > 0 {
			yi := y[i*ldy : i*ldy+i]
			for c := range i {
				colAbove[c] = a[c*lda+i]
			}
			ca := colAbove[:i]
			for r := i; r < m; r++ {
				a[r*lda+i] -= level1.Ddot(i, a[r*lda:r*lda+i], 1, yi, 1) + level1.Ddot(i, x[r*ldx:r*ldx+i], 1, ca, 1)
			}
		}
		// Left reflector of A[i:, i].
		beta, tq := lapackGonum.Dlarfg(m-i, a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		d[i], tauq[i] = beta, tq
		if i >= n-1 {
			a[i*lda+i] = beta
			continue
		}
		a[i*lda+i] = 1
		mv := m - i
		v := vbuf[:mv]
		for r := range mv {
			v[r] = a[(i+r)*lda+i]
		}
		nt := n - i - 1
		// Y[i+1:, i] = A[i:, i+1:]^T v - Y[i+1:, :i] (A[i:, :i]^T v) - A[:i, i+1:]^T (X[i:, :i]^T v).
		yc := make([]float64, nt)
		for r := range mv {
			if v[r] != 0 {
				level1.Daxpy(nt, v[r], a[(i+r)*lda+i+1:(i+r)*lda+n], 1, yc, 1)
			}
		}
		if i > 0 {
			t1, t2 := tmp[:i], tmp2[:i]
			clear(t1)
			clear(t2)
			for r := range mv {
				level1.Daxpy(i, v[r], a[(i+r)*lda:(i+r)*lda+i], 1, t1, 1)
				level1.Daxpy(i, v[r], x[(i+r)*ldx:(i+r)*ldx+i], 1, t2, 1)
			}
			for j := range nt {
				yc[j] -= level1.Ddot(i, y[(i+1+j)*ldy:(i+1+j)*ldy+i], 1, t1, 1)
			}
			for c := range i {
				level1.Daxpy(nt, -t2[c], a[c*lda+i+1:c*lda+n], 1, yc, 1)
			}
		}
		level1.Dscal(nt, tq, yc, 1)
		for j := range nt {
			y[(i+1+j)*ldy+i] = yc[j]
		}
		// A[i, i+1:] -= Y[i+1:, :i+1] A[i, :i+1]^T + A[:i, i+1:]^T X[i, :i]^T.
		row := a[i*lda+i+1 : i*lda+n]
		ai := a[i*lda : i*lda+i+1]
		for j := range nt {
			row[j] -= level1.Ddot(i+1, y[(i+1+j)*ldy:(i+1+j)*ldy+i+1], 1, ai, 1)
		}
		for c := range i {
			level1.Daxpy(nt, -x[i*ldx+c], a[c*lda+i+1:c*lda+n], 1, row, 1)
		}
		// Right reflector of A[i, i+1:].
		beta, tp := lapackGonum.Dlarfg(nt, row[0], row[min(1, nt-1):], 1)
		e[i], taup[i] = beta, tp
		row[0] = 1
		// X[i+1:, i] = A[i+1:, i+1:] u - A[i+1:, :i+1] (Y[i+1:, :i+1]^T u) - X[i+1:, :i] (A[:i, i+1:] u).
		mx := m - i - 1
		t3, t4 := tmp[:i+1], tmp2[:i]
		clear(t3)
		for j := range nt {
			level1.Daxpy(i+1, row[j], y[(i+1+j)*ldy:(i+1+j)*ldy+i+1], 1, t3, 1)
		}
		for c := range i {
			t4[c] = level1.Ddot(nt, a[c*lda+i+1:c*lda+n], 1, row, 1)
		}
		for r := range mx {
			rr := (i + 1 + r) * lda
			xv := level1.Ddot(nt, a[rr+i+1:rr+n], 1, row, 1) - level1.Ddot(i+1, a[rr:rr+i+1], 1, t3, 1)
			if i > 0 {
				xv -= level1.Ddot(i, x[(i+1+r)*ldx:(i+1+r)*ldx+i], 1, t4, 1)
			}
			x[(i+1+r)*ldx+i] = xv * tp
		}
	}
}

package lapack

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// SVD computes the thin SVD of the m×n matrix a (clobbered): the singular
// values into s (descending), and, when vectors is set, U (m×k) into u and V^T
// (k×n) into vt, k = min(m, n). It reports whether the algorithm converged.
func SVD(a []float64, m, n int, s, u, vt []float64, vectors bool) bool {
	k := min(m, n)
	if !useLAPACK64.Load() {
		if vectors && k > svdSmall && svdFast(a, m, n, s, u, vt) || !vectors && k > svdValuesSmall && svdValuesFast(a, m, n, s) {
			return true
		}
	}
	ga := blas64.General{Rows: m, Cols: n, Data: a, Stride: n}
	gu := blas64.General{Rows: m, Cols: k, Data: u, Stride: max(k, 1)}
	gv := blas64.General{Rows: k, Cols: n, Data: vt, Stride: max(n, 1)}
	job := lapack.SVDStore
	if !vectors {
		job = lapack.SVDNone
		gu.Stride, gv.Stride = 1, 1
	}
	work := []float64{0}
	lapack64.Gesvd(job, job, ga, gu, gv, s, work, -1)
	work = make([]float64, int(work[0]))
	return lapack64.Gesvd(job, job, ga, gu, gv, s, work, len(work))
}

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

// svdSmall is the size (min(m, n)) up to which SVD uses Dgesvd directly;
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
		Transpose(at, a, m, n)
		up := make([]float64, n*m) // n×m
		vpt := make([]float64, m*m)
		if !svdTall(at, n, m, s, up, vpt) {
			return false
		}
		Transpose(u, vpt, m, m) // V' = (V'^T)^T
		Transpose(vt, up, n, m) // U'^T
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
		Transpose(w, a, m, n)
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
	Transpose(ub[:n*n], ubt, n, n)
	Transpose(vb, vbt, n, n)
	if !bidiagCheck(d, e, s, ub, vb, n) {
		return false
	}
	// U = Q_U [U_B; 0], V = Q_V V_B.
	applyReflectors(ub, n, m, n, a, n, n, 0, tauq, true, false)
	applyReflectors(vb, n, n, n, a, n, n-1, 1, taup, false, false)
	copy(u, ub)
	Transpose(vt, vb, n, n)
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
			Gemm(true, false, h, r0+h, n, 1, q[r0:], n, q, n, 0, g[r0*n:], n)
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
	Gemm(true, false, k, k, m, 1, u, k, u, k, 0, g, k)
	for i := range k {
		g[i*k+i]--
	}
	if maxAbsSlice(g) > tol {
		return false
	}
	Gemm(false, true, k, k, n, 1, vt, n, vt, n, 0, g, k)
	for i := range k {
		g[i*k+i]--
	}
	if maxAbsSlice(g) > tol {
		return false
	}
	r := make([]float64, m*k)
	Gemm(false, true, m, k, n, 1, a, n, vt, n, 0, r, k)
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

package linalg

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/lapack/gonum"
)

// The symmetric eigensolver for larger matrices: A = Q T Q^T by blocked Householder
// tridiagonalisation (sytrdLower, as LAPACK's xSYTRD); without vectors the
// eigenvalues of T by the Pal-Walker-Kahan QR algorithm (Dsterf) on each unreduced
// block (xSYEV's path); with vectors, the eigenvalues and eigenvectors of T by
// divide and conquer (stedc.go, xSTEDC), or, should a secular equation not
// converge, Dsterf and inverse iteration (xSTEIN: tridiagonal LU with partial
// pivoting, reorthogonalisation within clusters); then V = Q Z by blocked
// reflector products. The O(n^3) work is the reduction, the merges' products and
// V = Q Z; gonum's Dsteqr, which applies every QR rotation to the n×n eigenvector
// matrix, spends most of its time there.

// eigSmall is the size up to which symEig uses Dsyev directly.
const eigSmall = 48

var lapackGonum gonum.Implementation

// symEigTridiag computes the eigen-decomposition of the symmetric n×n matrix a
// (lower triangle read) into w (ascending) and, with vectors, the columns of a.
func symEigTridiag(a, w []float64, n int, vectors bool) bool {
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	sytrdLower(a, n, d, e, tau)
	var z []float64
	if vectors {
		z = make([]float64, n*n)
		// Divide and conquer; if a secular equation does not converge, inverse
		// iteration.
		if !tridiagEigDC(d, e, w, z) && !tridiagEig(d, e, w, z) {
			return false
		}
	} else if !tridiagEig(d, e, w, nil) {
		return false
	}
	if vectors {
		// V = Q Z, applying the reflectors to Z: Q = H_0 H_1 ... H_{n-2} holds the
		// reflectors of sytrdLower (v_i[i+1] = 1, v_i[i+2:] in column i of a).
		applyReflectors(z, n, n, n, a, n, n-1, 1, tau, true, false)
		copy(a, z)
	}
	return true
}

// tridiagEig computes the eigenvalues w (ascending) of the n×n symmetric
// tridiagonal matrix with diagonal d and subdiagonal e (both clobbered) by Dsterf
// on each unreduced block and, when z is not nil, its eigenvectors into the
// columns of the n×n matrix z by inverse iteration (stein). It reports success.
func tridiagEig(d, e, w, z []float64) bool {
	n := len(d)
	vectors := z != nil
	blocks := splitTridiag(d, e)
	type eig struct {
		v     float64
		block int
	}
	eigs := make([]eig, 0, n)
	for bi, b := range blocks {
		bd := slices.Clone(d[b[0]:b[1]])
		be := slices.Clone(e[b[0] : b[1]-1])
		if !lapackGonum.Dsterf(len(bd), bd, be) {
			return false
		}
		for _, v := range bd {
			eigs = append(eigs, eig{v, bi})
		}
	}
	sort.SliceStable(eigs, func(i, j int) bool { return eigs[i].v < eigs[j].v })
	for i, ev := range eigs {
		w[i] = ev.v
	}
	if !vectors {
		return true
	}
	// Z: the eigenvectors of T, column j for w[j]; stein writes them as the rows
	// of zt.
	zt := make([]float64, n*n)
	for bi, b := range blocks {
		var vals []float64
		var cols []int
		for j, ev := range eigs {
			if ev.block == bi {
				vals = append(vals, ev.v)
				cols = append(cols, j)
			}
		}
		if !stein(d[b[0]:b[1]], e[b[0]:b[1]-1], vals, zt, n, b[0], cols) {
			return false
		}
	}
	transposeInto(z, zt, n, n)
	return true
}

// splitTridiag returns the unreduced blocks [start, end) of the tridiagonal matrix
// (d, e): it splits where |e_i| <= eps sqrt(|d_i|) sqrt(|d_{i+1}|) (LAPACK's
// criterion), setting those e_i to zero.
func splitTridiag(d, e []float64) [][2]int {
	const eps = 0x1p-53
	var out [][2]int
	start := 0
	for i := range e {
		if math.Abs(e[i]) <= eps*math.Sqrt(math.Abs(d[i]))*math.Sqrt(math.Abs(d[i+1])) {
			e[i] = 0
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(d)})
}

// stein computes by inverse iteration the eigenvectors of the unreduced symmetric
// tridiagonal block (d, e) for its eigenvalues vals (ascending), writing each into
// row cols[k] of the matrix zt (leading dimension ldz) at columns
// off..off+len(d)-1, the rest of the row untouched (LAPACK's xSTEIN: random
// start, at most 5 iterations plus 2 after convergence, eigenvalues closer than
// 1e-3 ||T||_1 form a cluster, the entry of largest magnitude made positive).
// Within a cluster each iterate is orthogonalised against the cluster's previous
// vectors by modified Gram-Schmidt over blocks of four vectors (xSTEIN's
// modified Gram-Schmidt does one vector at a time), and the final iterate once
// more (for exactly repeated eigenvalues, where the solve does not make the new
// vector dominate). It reports success (every vector
// converged).
func stein(d, e, vals []float64, zt []float64, ldz, off int, cols []int) bool {
	bs := len(d)
	if bs == 1 {
		zt[cols[0]*ldz+off] = 1
		return true
	}
	const (
		eps    = 0x1p-53
		maxits = 5
		extra  = 2
	)
	onenrm := 0.0
	for i := range bs {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < bs-1 {
			s += math.Abs(e[i])
		}
		onenrm = math.Max(onenrm, s)
	}
	ortol := 1e-3 * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(bs))
	// Deterministic random starts in (-1, 1), from xorshift64* (a few integer
	// operations an entry).
	seed := uint64(bs)*0x9e3779b97f4a7c15 ^ (uint64(off)+1)*0xbf58476d1ce4e5b9
	if seed == 0 {
		seed = 1
	}
	uniform := func() float64 {
		seed ^= seed >> 12
		seed ^= seed << 25
		seed ^= seed >> 27
		return float64((seed*2685821657736338717)>>11)*0x1p-52 - 1
	}
	fac := newTridiagLU(bs)
	x := make([]float64, bs)
	vecs := make([]float64, len(vals)*bs) // the block's eigenvectors so far, as rows
	gpStart := 0                          // first eigenvalue of the current cluster
	xjm := 0.0
	for j, lambda := range vals {
		xj := lambda
		if j > 0 {
			if xj-xjm < ortol {
				// Perturb coincident eigenvalues apart (LAPACK: pertol).
				if pertol := 10 * math.Abs(eps*xj); xj-xjm < pertol {
					xj = xjm + pertol
				}
			} else {
				gpStart = j
			}
		}
		xjm = xj
		for i := range x {
			x[i] = uniform()
		}
		fac.factor(d, e, xj, eps*onenrm)
		// One Gram-Schmidt pass against the cluster's previous vectors, modified
		// Gram-Schmidt over blocks of four (classical within a block, whose
		// vectors are orthonormal): each vector is read from memory once, for
		// its dot product, and again from cache for the update.
		orthogonalise := func(x []float64) {
			k := gpStart
			for ; k+4 <= j; k += 4 {
				d := dot4(vecs[k*bs:], bs, bs, x)
				c := [4]float64{-d[0], -d[1], -d[2], -d[3]}
				axpy4(vecs[k*bs:], bs, bs, &c, x)
			}
			for ; k < j; k++ {
				vk := vecs[k*bs : (k+1)*bs]
				c := -dotRow(vk, x, bs)
				for i, v := range vk {
					x[i] += c * v
				}
			}
		}
		converged := false
		xnorm := infNorm(x)
		for its, nrmchk := 1, 0; its <= maxits; its++ {
			// Scale the right-hand side to bs ||T||_1 max(eps, |u_nn|) in the
			// infinity norm: a solution much larger than that has converged.
			sc := float64(bs) * onenrm * math.Max(eps, math.Abs(fac.u[bs-1])) / xnorm
			for i := range x {
				x[i] *= sc
			}
			fac.solve(x)
			orthogonalise(x)
			if xnorm = infNorm(x); xnorm < dtpcrt {
				continue
			}
			// Iterate twice more after the criterion is met.
			if nrmchk++; nrmchk >= extra+1 {
				// The second Gram-Schmidt pass of the final iterate.
				orthogonalise(x)
				converged = true
				break
			}
		}
		if !converged {
			return false
		}
		nrm := 0.0
		jmax, big := 0, -1.0
		for i, v := range x {
			nrm += v * v
			if a := math.Abs(v); a > big {
				jmax, big = i, a
			}
		}
		scl := 1 / math.Sqrt(nrm)
		if x[jmax] < 0 {
			scl = -scl
		}
		v := vecs[j*bs : (j+1)*bs]
		for i := range x {
			v[i] = x[i] * scl
		}
		copy(zt[cols[j]*ldz+off:cols[j]*ldz+off+bs], v)
	}
	return true
}

// infNorm returns max |x_i| (NaN entries are skipped).
func infNorm(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > m {
			m = a
		}
	}
	return m
}

// tridiagLU is the LU factorisation with partial pivoting of T - lambda I for a
// symmetric tridiagonal T (LAPACK's xLAGTF): U has the diagonal u and two
// superdiagonals u1, u2; l holds the multipliers and swap whether rows k and k+1
// were interchanged. solve uses them in a branch-free form (ga, gb, ca, cb, w1,
// w2, set by factor), so that each step of its two recurrences waits for one
// fused multiply-add.
type tridiagLU struct {
	u, u1, u2, l []float64
	uinv         []float64 // 1/u, with pivots below tol in magnitude replaced by ±tol
	swap         []bool
	// Forward step k: x[k] = ga c + gb b, carry = ca c + cb b, where c is the
	// carried value and b = x[k+1]; back substitution:
	// x[k] = (x[k] uinv[k] - w2[k] x[k+2]) - w1[k] x[k+1].
	ga, gb, ca, cb, w1, w2 []float64
}

func newTridiagLU(n int) *tridiagLU {
	f := func() []float64 { return make([]float64, n) }
	return &tridiagLU{u: f(), u1: f(), u2: f(), l: f(), uinv: f(), swap: make([]bool, n),
		ga: f(), gb: f(), ca: f(), cb: f(), w1: f(), w2: f()}
}

// factor factors T - lambda I; pivots smaller than tol in magnitude are replaced by
// ±tol in the solves (LAPACK's xLAGTS with job -1: the shifted matrix is singular
// up to rounding at an eigenvalue, and the perturbation only scales the result).
func (f *tridiagLU) factor(d, e []float64, lambda, tol float64) {
	defer func() {
		u, uinv, w1, w2 := f.u, f.uinv[:len(f.u)], f.w1[:len(f.u)], f.w2[:len(f.u)]
		u1, u2 := f.u1[:len(f.u)], f.u2[:len(f.u)]
		for k, p := range u {
			if math.Abs(p) < tol {
				p = math.Copysign(tol, p)
			}
			r := 1 / p
			uinv[k] = r
			w1[k] = u1[k] * r
			w2[k] = u2[k] * r
		}
	}()
	n := len(d)
	// Row k of the active matrix: (a, b, c) in columns k, k+1, k+2.
	a := d[0] - lambda
	b := 0.0
	if n > 1 {
		b = e[0]
	}
	c := 0.0
	for k := range n - 1 {
		// Next row: sub-diagonal e[k], diagonal d[k+1] - lambda, super e[k+1].
		sub, dia, sup := e[k], d[k+1]-lambda, 0.0
		if k+1 < n-1 {
			sup = e[k+1]
		}
		if math.Abs(sub) > math.Abs(a) {
			// Interchange rows k and k+1.
			f.swap[k] = true
			f.u[k], f.u1[k], f.u2[k] = sub, dia, sup
			m := a / sub
			f.l[k] = m
			// solve's step: x[k] = b, carry = c - l b.
			f.ga[k], f.gb[k], f.ca[k], f.cb[k] = 0, 1, 1, -m
			a, b, c = b-m*dia, c-m*sup, 0
		} else {
			f.swap[k] = false
			f.u[k], f.u1[k], f.u2[k] = a, b, c
			m := 0.0
			if a != 0 {
				m = sub / a
			}
			f.l[k] = m
			// solve's step: x[k] = c, carry = b - l c.
			f.ga[k], f.gb[k], f.ca[k], f.cb[k] = 1, 0, -m, 1
			a, b, c = dia-m*b, sup-m*c, 0
		}
	}
	f.u[n-1], f.u1[n-1], f.u2[n-1] = a, 0, 0
}

// solve overwrites x with (T - lambda I)^-1 x (x finite).
func (f *tridiagLU) solve(x []float64) {
	n := len(x)
	ga, gb, ca, cb := f.ga[:n-1], f.gb[:n-1], f.ca[:n-1], f.cb[:n-1]
	c := x[0]
	for k := range n - 1 {
		b := x[k+1]
		x[k] = ga[k]*c + gb[k]*b // one term is zero, the other exact
		c = math.FMA(ca[k], c, cb[k]*b)
	}
	x[n-1] = c
	uinv, w1, w2 := f.uinv[:n], f.w1[:n], f.w2[:n]
	x[n-1] *= uinv[n-1]
	if n > 1 {
		x[n-2] = x[n-2]*uinv[n-2] - w1[n-2]*x[n-1]
	}
	for k := n - 3; k >= 0; k-- {
		x[k] = math.FMA(-w1[k], x[k+1], x[k]*uinv[k]-w2[k]*x[k+2])
	}
}

// sytrdLower reduces the symmetric n×n matrix a (lower triangle read, row-major) to
// tridiagonal form T = Q^T A Q, as LAPACK's Dsytrd with uplo = Lower: d and e
// receive T's diagonal and subdiagonal, and the reflectors H_i = I - tau_i v v^T
// (v[i+1] = 1, v[i+2:] stored in column i below the subdiagonal) remain in a; the
// strict upper triangle is left with intermediate values. It is blocked like
// Dsytrd: panels of nb columns are reduced by latrd, which keeps the trailing
// matrix untouched and accumulates W, and the lower triangle of the trailing
// matrix then takes the rank-2nb update A -= V W^T + W V^T (xSYR2K) as matrix
// products C -= [V W] [W V]^T on row blocks of the lower block triangle. Half of
// the flops are the symmetric matrix-vector products of latrd (symvLower, one
// pass over the lower triangle for each column), half the matrix products.
func sytrdLower(a []float64, n int, d, e, tau []float64) {
	const (
		nb = 32
		rb = 64 // rows of a trailing-update block
	)
	// pw holds a panel's columns and W transposed (2nb×m, leading dimension m):
	// rows 0..nb-1 the columns of A, rows nb..2nb-1 the columns of W.
	pw := make([]float64, max(2*nb*n, 8*nb*nb)) // the last panel is m×m, m <= 2nb
	var qw []float64
	if n > 2*nb {
		qw = make([]float64, 2*nb*(n-nb))
	}
	scr := newLatrdScratch(n, nb)
	i0 := 0
	for ; n-i0 > 2*nb; i0 += nb {
		m := n - i0
		sub := a[i0*n+i0:]
		latrd(sub, n, m, nb, e[i0:], tau[i0:], pw, scr)
		// Trailing update with the unit entries of the reflectors in place: with
		// V and W the rows nb..m-1 of the panel, P^T = [V^T; W^T] (rows of pw)
		// and Q^T = [W^T; V^T], C -= P Q^T on the lower block triangle of C.
		mt := m - nb
		for k := range nb {
			copy(qw[k*mt:(k+1)*mt], pw[(nb+k)*m+nb:(nb+k)*m+m])
			copy(qw[(nb+k)*mt:(nb+k+1)*mt], pw[k*m+nb:k*m+m])
		}
		c := sub[nb*n+nb:]
		for r0 := 0; r0 < mt; r0 += rb {
			h := min(rb, mt-r0)
			gemm(true, false, h, r0+h, 2*nb, -1, pw[nb+r0:], m, qw, mt, 1, c[r0*n:], n)
		}
		for j := range nb {
			sub[(j+1)*n+j] = e[i0+j]
			d[i0+j] = sub[j*n+j]
		}
	}
	// The last columns in one panel, which needs no trailing update.
	m := n - i0
	sub := a[i0*n+i0:]
	latrd(sub, n, m, m, e[i0:], tau[i0:], pw, scr)
	for j := range m {
		if j+1 < m {
			sub[(j+1)*n+j] = e[i0+j]
		}
		d[i0+j] = sub[j*n+j]
	}
}

// latrdScratch holds latrd's work vectors.
type latrdScratch struct{ wc, tw, ta, cw, ca []float64 }

func newLatrdScratch(n, nb int) *latrdScratch {
	nb *= 2 // the last panel has up to 2nb columns
	return &latrdScratch{wc: make([]float64, n), tw: make([]float64, nb), ta: make([]float64, nb),
		cw: make([]float64, nb), ca: make([]float64, nb)}
}

// latrd reduces the first nb columns of the trailing m×m matrix a (leading
// dimension lda, lower triangle read) as LAPACK's Dlatrd (lower): for each column
// i it applies the panel's earlier transformations to column i, generates the
// reflector that annihilates a[i+2:, i] (leaving a[i+1, i] = 1 and e[i] = beta),
// and computes W[i+1:, i] so that the trailing matrix is A - V W^T - W V^T:
//
//	W[:, i] = tau (S v - V (W^T v) - W (V^T v)),  then  W[:, i] -= (tau/2)(W[:, i]^T v) v,
//
// with S the trailing matrix A[i+1:, i+1:] as it was before the panel. The panel
// is worked on transposed in pw (its columns as the rows 0..nb-1, leading
// dimension m), where the column updates and the products with V and W run
// along contiguous rows, and copied back at the end; W^T is left in the rows
// nb..2nb-1 of pw.
func latrd(a []float64, lda, m, nb int, e, tau, pw []float64, scr *latrdScratch) {
	pc := pw[:nb*m]         // the panel's columns: pc[c*m+r] = A[r, c]
	wt := pw[nb*m : 2*nb*m] // W^T: wt[c*m+r] = W[r, c]
	for r := range m {
		row := a[r*lda : r*lda+min(r+1, nb)]
		for c, v := range row {
			pc[c*m+r] = v
		}
	}
	for i := range nb {
		col := pc[i*m+i : i*m+m] // A[i:, i]
		// A[i:, i] -= A[i:, :i] W[i, :i]^T + W[i:, :i] A[i, :i]^T.
		if i > 0 {
			cw, ca := scr.cw[:i], scr.ca[:i]
			for c := range i {
				cw[c] = wt[c*m+i]
				ca[c] = pc[c*m+i]
			}
			gemvT(i, m-i, -1, pc[i:], m, cw, col)
			gemvT(i, m-i, -1, wt[i:], m, ca, col)
		}
		if i >= m-1 {
			continue
		}
		// The reflector of A[i+1:, i] (v[0] = 1).
		k := m - i - 1
		v := col[1:]
		beta, ti := lapackGonum.Dlarfg(k, v[0], v[min(1, k-1):], 1)
		e[i], tau[i] = beta, ti
		v[0] = 1
		wc := scr.wc[:k]
		symvLower(k, a[(i+1)*lda+i+1:], lda, v, wc)
		if i > 0 {
			// wc -= V (W^T v) + W (V^T v) over the panel's first i columns.
			tw, ta := scr.tw[:i], scr.ta[:i]
			clear(tw)
			clear(ta)
			gemvN(i, k, 1, wt[i+1:], m, v, tw, 1)
			gemvN(i, k, 1, pc[i+1:], m, v, ta, 1)
			gemvT(i, k, -1, pc[i+1:], m, tw, wc)
			gemvT(i, k, -1, wt[i+1:], m, ta, wc)
		}
		alpha := 0.0
		for r := range k {
			wc[r] *= ti
			alpha += wc[r] * v[r]
		}
		alpha *= -0.5 * ti
		wi := wt[i*m+i+1 : i*m+m]
		for r := range k {
			wi[r] = wc[r] + alpha*v[r]
		}
	}
	// Back into a: the updated diagonal, the unit entries and the reflectors.
	for r := range m {
		row := a[r*lda : r*lda+min(r+1, nb)]
		for c := range row {
			row[c] = pc[c*m+r]
		}
	}
}

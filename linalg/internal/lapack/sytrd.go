package lapack

// sytrdLower reduces the symmetric n×n matrix a (lower triangle read, row-major) to
// tridiagonal form T = Q^T A Q, as LAPACK's Dsytrd with uplo = Lower: d and e
// receive T's diagonal and subdiagonal, and the reflectors H_i = I - tau_i v v^T
// (v[i+1] = 1, v[i+2:] stored in column i below the subdiagonal) remain in a; the
// strict upper triangle is left with intermediate values. It is blocked like
// Dsytrd: panels of nb columns are reduced by latrd, which keeps the trailing
// matrix untouched and accumulates W, and the lower triangle of the trailing
// matrix then takes the rank-2nb update A -= V W^T + W V^T (xSYR2K) as matrix
// products C -= [V W] [W V]^T on row blocks of the lower block triangle
// (lowerBlocks, which splits them over goroutines). Half of the flops are the
// symmetric matrix-vector products of latrd (symvLower, one pass over the lower
// triangle for each column), half the matrix products.
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
		lowerBlocks(mt, 2*nb, rb, func(workers, r0, h int) {
			gemmOn(workers, true, false, h, r0+h, 2*nb, -1, pw[nb+r0:], m, qw, mt, 1, c[r0*n:], n)
		})
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
	pc := packPanel(pw, a, lda, m, nb) // the panel's columns: pc[c*m+r] = A[r, c]
	wt := pw[nb*m : 2*nb*m]            // W^T: wt[c*m+r] = W[r, c]
	for i := range nb {
		col := pc[i*m+i : i*m+m] // A[i:, i]
		// A[i:, i] -= A[i:, :i] W[i, :i]^T + W[i:, :i] A[i, :i]^T.
		panelUpdate(col, m, i, pc, wt[i:], m, wt, pc[i:], m, scr.cw, scr.ca)
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

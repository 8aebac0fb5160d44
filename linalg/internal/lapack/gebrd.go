package lapack

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
		Gemm(true, false, mt, nt, 2*nb, -1, pw[nb:], mm, right, nt, 1, sub[nb*lda+nb:], lda)
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
	pc := packPanel(pw, a, lda, m, nb) // pc[c*m+r] = A[r, c] for r >= c
	xt := pw[nb*m : 2*nb*m]            // xt[c*m+r] = X[r, c]
	for i := range nb {
		col := pc[i*m+i : i*m+m] // A[i:, i]
		// A[i:, i] -= A[i:, :i] Y[i, :i]^T + X[i:, :i] A[:i, i].
		panelUpdate(col, m, i, pc, yt[i:], n, xt, a[i:], lda, scr.c1, scr.c2)
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

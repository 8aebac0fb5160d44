package lapack

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
	Gemm(true, false, kb, kb, m, 1, v, kb, v, kb, 0, vtv, kb)
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
	Gemm(true, false, kb, cols, m, 1, v, kb, zs, ldz, 0, w, cols)
	Gemm(trans, false, kb, cols, kb, 1, t, kb, w, cols, 0, w2, cols)
	Gemm(false, false, m, cols, kb, -1, v, kb, w2, cols, 1, zs, ldz)
}

// packPanel copies the lower trapezoid (r >= c) of the m×nb panel of a (leading
// dimension lda) to pw transposed, pw[c*m+r] = A[r, c], and returns pw[:nb*m]:
// the panel of the blocked reductions (latrd, labrd), whose column updates then
// run along contiguous rows.
func packPanel(pw, a []float64, lda, m, nb int) []float64 {
	pc := pw[:nb*m]
	for r := range m {
		row := a[r*lda : r*lda+min(r+1, nb)]
		for c, v := range row {
			pc[c*m+r] = v
		}
	}
	return pc
}

// panelUpdate subtracts from col = A[i:, i] the rank-i update of column i in a
// panel reduction (latrd, labrd), P[i:, :i] y + Q[i:, :i] z, with P and Q stored
// transposed in pt and qt (leading dimension m: pt[c*m+r] = P[r, c]) and y[c] =
// ys[c*ldy], z[c] = zs[c*ldz] gathered into the scratch vectors cy and cz (at
// least i long). The P term is subtracted first.
func panelUpdate(col []float64, m, i int, pt, ys []float64, ldy int, qt, zs []float64, ldz int, cy, cz []float64) {
	if i == 0 {
		return
	}
	cy, cz = cy[:i], cz[:i]
	for c := range i {
		cy[c] = ys[c*ldy]
		cz[c] = zs[c*ldz]
	}
	gemvT(i, m-i, -1, pt[i:], m, cy, col)
	gemvT(i, m-i, -1, qt[i:], m, cz, col)
}

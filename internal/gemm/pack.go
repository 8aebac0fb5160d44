package gemm

// realA is a float64 left operand: op(A) = A (m x k, A[i*lda+p]) or, if
// trans, A^T (A is k x m, op(A)[i,p] = a[p*lda+i]).
type realA struct {
	a     []float64
	lda   int
	trans bool
}

func (x *realA) pack(dst []float64, mr, i0, mb, p0, kb int) {
	for ip := 0; ip < mb; ip += mr {
		panel := dst[ip*kb : (ip+mr)*kb]
		rows := min(mr, mb-ip)
		if x.trans {
			// op(A)[i, p0+p] for i in the panel is contiguous in a.
			for p := 0; p < kb; p++ {
				src := x.a[(p0+p)*x.lda+i0+ip:]
				d := panel[p*mr : p*mr+mr]
				copy(d, src[:rows])
				clear(d[rows:])
			}
			continue
		}
		if rows == mr && mr%4 == 0 {
			packGroups(panel, mr, x.a, (i0+ip)*x.lda+p0, x.lda, kb)
			continue
		}
		for r := 0; r < rows; r++ {
			src := x.a[(i0+ip+r)*x.lda+p0:]
			src = src[:kb]
			for p, v := range src {
				panel[p*mr+r] = v
			}
		}
		if rows < mr {
			for p := 0; p < kb; p++ {
				clear(panel[p*mr+rows : p*mr+mr])
			}
		}
	}
}

// realB is a float64 right operand: op(B) = B (k x n, B[p*ldb+j]) or, if
// trans, B^T (B is n x k, op(B)[p,j] = b[j*ldb+p]).
type realB struct {
	b     []float64
	ldb   int
	trans bool
}

func (x *realB) pack(dst []float64, nr, j0, nb, p0, kb int) {
	for jp := 0; jp < nb; jp += nr {
		panel := dst[jp*kb : (jp+nr)*kb]
		cols := min(nr, nb-jp)
		if !x.trans {
			for p := 0; p < kb; p++ {
				src := x.b[(p0+p)*x.ldb+j0+jp:]
				d := panel[p*nr : p*nr+nr]
				copy(d, src[:cols])
				clear(d[cols:])
			}
			continue
		}
		if cols == nr && nr%4 == 0 {
			packGroups(panel, nr, x.b, (j0+jp)*x.ldb+p0, x.ldb, kb)
			continue
		}
		for cc := 0; cc < cols; cc++ {
			src := x.b[(j0+jp+cc)*x.ldb+p0:]
			src = src[:kb]
			for p, v := range src {
				panel[p*nr+cc] = v
			}
		}
		if cols < nr {
			for p := 0; p < kb; p++ {
				clear(panel[p*nr+cols : p*nr+nr])
			}
		}
	}
}

// packRows8 interleaves 8 rows of length kb starting at a[off] (row stride
// lda) into dst[p*stride+r], r < 8: one sequential store stream per k step
// instead of eight strided ones. It packs full A panels (stride MR) and,
// in groups of 8 columns, full panels of a transposed B (stride NR).
func packRows8(dst []float64, stride int, a []float64, off, lda, kb int) {
	r0 := a[off : off+kb]
	r1 := a[off+lda : off+lda+kb]
	r2 := a[off+2*lda : off+2*lda+kb]
	r3 := a[off+3*lda : off+3*lda+kb]
	r4 := a[off+4*lda : off+4*lda+kb]
	r5 := a[off+5*lda : off+5*lda+kb]
	r6 := a[off+6*lda : off+6*lda+kb]
	r7 := a[off+7*lda : off+7*lda+kb]
	for p := range r0 {
		d := dst[stride*p : stride*p+8 : stride*p+8]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// packRows4 is packRows8 for 4 rows.
func packRows4(dst []float64, stride int, a []float64, off, lda, kb int) {
	r0 := a[off : off+kb]
	r1 := a[off+lda : off+lda+kb]
	r2 := a[off+2*lda : off+2*lda+kb]
	r3 := a[off+3*lda : off+3*lda+kb]
	for p := range r0 {
		d := dst[stride*p : stride*p+4 : stride*p+4]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
	}
}

// packGroups packs a full panel of width w (a multiple of 4) from w rows of
// a starting at a[off] with row stride lda, as dst[p*w+r].
func packGroups(dst []float64, w int, a []float64, off, lda, kb int) {
	g := 0
	for ; g+8 <= w; g += 8 {
		packRows8(dst[g:], w, a, off+g*lda, lda, kb)
	}
	for ; g < w; g += 4 {
		packRows4(dst[g:], w, a, off+g*lda, lda, kb)
	}
}

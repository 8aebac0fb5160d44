package gemm

// realA is a real left operand: op(A) = A (m x k, A[i*lda+p]) or, if
// trans, A^T (A is k x m, op(A)[i,p] = a[p*lda+i]).
type realA[R float] struct {
	a     []R
	lda   int
	trans bool
}

// pack implements packerA: rows of op(A) are the panels' width.
func (x *realA[R]) pack(dst []R, mr, i0, mb, p0, kb int) {
	packPanels(dst, mr, x.a, x.lda, x.trans, i0, mb, p0, kb)
}

// realB is a real right operand: op(B) = B (k x n, B[p*ldb+j]) or, if
// trans, B^T (B is n x k, op(B)[p,j] = b[j*ldb+p]).
type realB[R float] struct {
	b     []R
	ldb   int
	trans bool
}

// pack implements packerB: columns of op(B) are the panels' width; op(B)'s column
// j is contiguous in b when B is stored transposed.
func (x *realB[R]) pack(dst []R, nr, j0, nb, p0, kb int) {
	packPanels(dst, nr, x.b, x.ldb, !x.trans, j0, nb, p0, kb)
}

// packPanels packs the block [i0, i0+nb) x [p0, p0+kb) of an operand seen as nb
// lines of kb values, value (i, p) at x[i*ld+p], or at x[p*ld+i] when across is
// set (the lines run across the storage rows), into ceil(nb/w) micro-panels of w*kb
// values stored k-major (dst[panel*w*kb + p*w + r]), zero-padding lines beyond nb.
// It packs both operands: the rows of op(A) (w = MR) and the columns of op(B)
// (w = NR).
func packPanels[R float](dst []R, w int, x []R, ld int, across bool, i0, nb, p0, kb int) {
	ip := 0
	if across && nb >= 2*w && packAcrossRowsAsm(dst, w, x[p0*ld+i0:], ld, nb/w, kb) {
		ip = nb / w * w
	}
	for ; ip < nb; ip += w {
		panel := dst[ip*kb : (ip+w)*kb]
		rows := min(w, nb-ip)
		if across {
			packAcross(panel, w, x[p0*ld+i0+ip:], ld, rows, kb)
			continue
		}
		if rows == w && w%4 == 0 {
			packGroups(panel, w, x, (i0+ip)*ld+p0, ld, kb)
			continue
		}
		for r := 0; r < rows; r++ {
			src := x[(i0+ip+r)*ld+p0:]
			src = src[:kb]
			for p, v := range src {
				panel[p*w+r] = v
			}
		}
		if rows < w {
			for p := 0; p < kb; p++ {
				clear(panel[p*w+rows : p*w+w])
			}
		}
	}
}

// packAcross packs one micro-panel of width w whose lines run across the storage
// rows of x: value (r, p) is x[p*ld+r] for the rows < w lines of the panel, and
// dst[p*w+r] receives it (0 for r >= rows). The copies are of a few values each
// (one micro-panel row, 8 or 24 for the AVX-512 kernel), so they are done with
// 32-byte AVX moves where the widths allow (packAcrossAsm), else as groups of four
// assignments, instead of calls to copy and clear, whose call overhead was most of
// the packing time of thin products such as X^T G with a long k.
func packAcross[R float](dst []R, w int, x []R, ld, rows, kb int) {
	if kb == 0 {
		return
	}
	x = x[:(kb-1)*ld+rows]
	dst = dst[:kb*w]
	if packAcrossAsm(dst, w, x, ld, rows, kb) {
		return
	}
	if rows == w && w%4 == 0 {
		for p := range kb {
			src := x[p*ld : p*ld+w]
			d := dst[p*w : p*w+w]
			for c := 0; c+4 <= len(d); c += 4 {
				s4, d4 := src[c:c+4:c+4], d[c:c+4:c+4]
				d4[0], d4[1], d4[2], d4[3] = s4[0], s4[1], s4[2], s4[3]
			}
		}
		return
	}
	// A partial panel: clear it in one call, then fill it line by line.
	clear(dst)
	for r := range rows {
		for p := range kb {
			dst[p*w+r] = x[p*ld+r]
		}
	}
}

// packRows8 interleaves 8 rows of length kb starting at a[off] (row stride
// lda) into dst[p*stride+r], r < 8: one sequential store stream per k step
// instead of eight strided ones. It packs full A panels (stride MR) and,
// in groups of 8 columns, full panels of a transposed B (stride NR).
func packRows8[R float](dst []R, stride int, a []R, off, lda, kb int) {
	done := packRows8Asm(dst, stride, a, off, lda, kb)
	if done == kb {
		return
	}
	dst = dst[stride*done:]
	off += done
	kb -= done
	rows := [8]int{off, off + lda, off + 2*lda, off + 3*lda, off + 4*lda, off + 5*lda, off + 6*lda, off + 7*lda}
	interleave8(dst, stride, a, rows[:], 0, kb)
}

// interleave8 writes dst[p*stride + r] = b[off[r] + p0 + p] for r < 8 and p <
// kb: one sequential store stream per k step.
func interleave8[R float](dst []R, stride int, b []R, off []int, p0, kb int) {
	r0 := b[off[0]+p0 : off[0]+p0+kb]
	r1 := b[off[1]+p0 : off[1]+p0+kb]
	r2 := b[off[2]+p0 : off[2]+p0+kb]
	r3 := b[off[3]+p0 : off[3]+p0+kb]
	r4 := b[off[4]+p0 : off[4]+p0+kb]
	r5 := b[off[5]+p0 : off[5]+p0+kb]
	r6 := b[off[6]+p0 : off[6]+p0+kb]
	r7 := b[off[7]+p0 : off[7]+p0+kb]
	r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
	r4, r5, r6, r7 = r4[:len(r0)], r5[:len(r0)], r6[:len(r0)], r7[:len(r0)]
	for p := range r0 {
		d := dst[stride*p : stride*p+8 : stride*p+8]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// packRows4 is packRows8 for 4 rows.
func packRows4[R float](dst []R, stride int, a []R, off, lda, kb int) {
	r0 := a[off : off+kb]
	r1 := a[off+lda : off+lda+kb]
	r2 := a[off+2*lda : off+2*lda+kb]
	r3 := a[off+3*lda : off+3*lda+kb]
	r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
	for p := range r0 {
		d := dst[stride*p : stride*p+4 : stride*p+4]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
	}
}

// packGroups packs a full panel of width w (a multiple of 4) from w rows of
// a starting at a[off] with row stride lda, as dst[p*w+r].
func packGroups[R float](dst []R, w int, a []R, off, lda, kb int) {
	g := 0
	for ; g+8 <= w; g += 8 {
		packRows8(dst[g:], w, a, off+g*lda, lda, kb)
	}
	for ; g < w; g += 4 {
		packRows4(dst[g:], w, a, off+g*lda, lda, kb)
	}
}

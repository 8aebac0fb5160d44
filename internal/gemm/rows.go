package gemm

// Products whose right operand is not a strided matrix but a set of rows or
// columns, each contiguous, at arbitrary offsets of one slice: the implicit
// GEMM of a convolution, where the rows of im2col's matrix are shifted windows
// of the (padded) image itself and packing B straight from the image replaces
// materialising the columns.

// RowsB computes C = alpha*op(A)*B + beta*C, where B (k x n) is given by the
// offsets of its rows in b, B[p, j] = b[rowB[p] + j] (rows may overlap), and
// op(A) is A or A^T with the conventions of [Dgemm]. It runs on at most
// workers goroutines, with the kernel and block sizes of Sgemm (float32) or
// Dgemm (float64), and gives the result of Sgemm or Dgemm on the materialised
// B bit for bit. It panics like Dgemm on bad sizes or strides, or when a row
// of B runs past the end of b.
func RowsB[R float](workers int, transA bool, m, n, k int, alpha R, a []R, lda int, b []R, rowB []int, beta R, c []R, ldc int) {
	checkOffsets(rowB, k, n, len(b))
	// The checks of B's stride and length are those of a 1 x n matrix: its rows
	// were checked above.
	if trivial(transA, false, m, n, k, alpha, len(a), lda, n*k, n, beta, c, ldc) {
		return
	}
	run(kernelOf[R](), workers, m, n, k, &realA[R]{a: a, lda: lda, trans: transA}, &rowsB[R]{b: b, off: rowB}, alpha, beta, c, ldc)
}

// ColsB computes C = alpha*op(A)*B + beta*C, where B (k x n) is given by the
// offsets of its columns in b, B[p, j] = b[colB[j] + p] (columns may
// overlap): the transpose of a matrix of rows at arbitrary offsets, as in
// G X^T for the weight gradient of a convolution. Otherwise as [RowsB].
func ColsB[R float](workers int, transA bool, m, n, k int, alpha R, a []R, lda int, b []R, colB []int, beta R, c []R, ldc int) {
	checkOffsets(colB, n, k, len(b))
	if trivial(transA, false, m, n, k, alpha, len(a), lda, n*k, n, beta, c, ldc) {
		return
	}
	run(kernelOf[R](), workers, m, n, k, &realA[R]{a: a, lda: lda, trans: transA}, &colsB[R]{b: b, off: colB}, alpha, beta, c, ldc)
}

// checkOffsets panics with shortB unless off holds at least count offsets, each
// the start of a run of span elements within a slice of length lenB: the rows of
// RowsB's B (count k, span n) or the columns of ColsB's (count n, span k).
func checkOffsets(off []int, count, span, lenB int) {
	if len(off) < count {
		panic(shortB)
	}
	for _, o := range off[:count] {
		if o < 0 || o+span > lenB {
			panic(shortB)
		}
	}
}

// kernelOf returns the kernel of Sgemm (float32) or Dgemm (float64).
func kernelOf[R float]() *kernel[R] {
	var z R
	if _, ok := any(z).(float32); ok {
		return any(kern32).(*kernel[R])
	}
	return any(kern).(*kernel[R])
}

// rowsB is a right operand of rows at offsets: B[p, j] = b[off[p] + j].
type rowsB[R float] struct {
	b   []R
	off []int
}

// pack implements packerB: a micro-panel's k step is nr consecutive values of
// one row. Runs of rows at a constant positive stride (the channels of one
// kernel offset of a convolution) are packed as one strided block (packAcross,
// with AVX moves).
func (x *rowsB[R]) pack(dst []R, nr, j0, nb, p0, kb int) {
	offs := x.off[p0 : p0+kb]
	for ip := 0; ip < nb; ip += nr {
		panel := dst[ip*kb : (ip+nr)*kb]
		cols := min(nr, nb-ip)
		for p := 0; p < kb; {
			q, d := p+1, 1
			if q < kb && offs[q] > offs[p] {
				d = offs[q] - offs[p]
				for q < kb && offs[q]-offs[q-1] == d {
					q++
				}
			}
			packAcross(panel[p*nr:], nr, x.b[offs[p]+j0+ip:], d, cols, q-p)
			p = q
		}
	}
}

// colsB is a right operand of columns at offsets: B[p, j] = b[off[j] + p].
type colsB[R float] struct {
	b   []R
	off []int
}

// pack implements packerB: a micro-panel interleaves nr columns, each
// contiguous, eight at a time; eight at a constant positive stride (eight
// channels of one kernel offset of a convolution) go to packRows8 (an AVX
// transpose for float32).
func (x *colsB[R]) pack(dst []R, nr, j0, nb, p0, kb int) {
	for ip := 0; ip < nb; ip += nr {
		panel := dst[ip*kb : (ip+nr)*kb]
		cols := min(nr, nb-ip)
		offs := x.off[j0+ip : j0+ip+cols]
		r := 0
		for ; r+8 <= cols; r += 8 {
			if d := offs[r+1] - offs[r]; d > 0 && uniform(offs[r:r+8], d) {
				packRows8(panel[r:], nr, x.b, offs[r]+p0, d, kb)
				continue
			}
			interleave8(panel[r:], nr, x.b, offs[r:r+8], p0, kb)
		}
		for ; r < cols; r++ {
			src := x.b[offs[r]+p0 : offs[r]+p0+kb]
			for p, v := range src {
				panel[p*nr+r] = v
			}
		}
		if cols < nr {
			for p := range kb {
				clear(panel[p*nr+cols : p*nr+nr])
			}
		}
	}
}

// uniform reports whether the offsets step by d.
func uniform(offs []int, d int) bool {
	for i := 1; i < len(offs); i++ {
		if offs[i]-offs[i-1] != d {
			return false
		}
	}
	return true
}

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

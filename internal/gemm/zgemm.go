package gemm

import (
	"runtime"
	"unsafe"
)

// Zgemm computes C = alpha*op(A)*op(B) + beta*C for complex128 matrices,
// where op(X) is X if the corresponding trans flag is false and the plain
// (non-conjugated) transpose X^T otherwise. Shapes, strides (in complex
// elements), argument checks and the beta == 0 rule are those of [Dgemm].
//
// Zgemm runs on the real micro-kernels: C is viewed as a real m x 2n matrix
// and the packing routines expand op(A) and alpha*op(B) into real operands
// whose real product is the complex product (see the package doc).
func Zgemm(transA, transB bool, m, n, k int, alpha complex128, a []complex128, lda int, b []complex128, ldb int, beta complex128, c []complex128, ldc int) {
	ZgemmOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// ZgemmOn is Zgemm split over at most workers goroutines, as DgemmOn is Dgemm.
func ZgemmOn(workers int, transA, transB bool, m, n, k int, alpha complex128, a []complex128, lda int, b []complex128, ldb int, beta complex128, c []complex128, ldc int) {
	if trivial(transA, transB, m, n, k, alpha, len(a), lda, len(b), ldb, beta, c, ldc) {
		return
	}
	rbeta := 1.0
	switch beta {
	case 0:
		rbeta = 0
	case 1:
	default:
		Scale(m, n, beta, c, ldc)
	}
	cf := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(c))), 2*len(c))
	run(kern, workers, m, 2*n, 2*k,
		&cplxA{a: a, lda: lda, trans: transA},
		&cplxB{b: b, ldb: ldb, trans: transB, alpha: alpha},
		1, rbeta, cf, 2*ldc)
}

// cplxA is a complex left operand seen as the real m x 2k matrix
// Ã[i, 2p] = re op(A)[i,p], Ã[i, 2p+1] = im op(A)[i,p].
type cplxA struct {
	a     []complex128
	lda   int
	trans bool
}

// pack implements packerA; q0 and kb are even because KC is.
func (x *cplxA) pack(dst []float64, mr, i0, mb, q0, kb int) {
	p0, kp := q0/2, kb/2
	for ip := 0; ip < mb; ip += mr {
		panel := dst[ip*kb : (ip+mr)*kb]
		rows := min(mr, mb-ip)
		for r := 0; r < rows; r++ {
			i := i0 + ip + r
			if x.trans {
				for p := 0; p < kp; p++ {
					v := x.a[(p0+p)*x.lda+i]
					panel[2*p*mr+r] = real(v)
					panel[(2*p+1)*mr+r] = imag(v)
				}
				continue
			}
			src := x.a[i*x.lda+p0:]
			for p, v := range src[:kp] {
				panel[2*p*mr+r] = real(v)
				panel[(2*p+1)*mr+r] = imag(v)
			}
		}
		if rows < mr {
			for q := 0; q < kb; q++ {
				clear(panel[q*mr+rows : q*mr+mr])
			}
		}
	}
}

// cplxB is alpha*op(B) seen as the real 2k x 2n matrix made of the 2x2
// blocks [re im; -im re] of its entries.
type cplxB struct {
	b     []complex128
	ldb   int
	trans bool
	alpha complex128
}

// pack implements packerB; j0, nb, q0 and kb are even because NR and KC are.
func (x *cplxB) pack(dst []float64, nr, j0, nb, q0, kb int) {
	p0, kp := q0/2, kb/2
	for jp := 0; jp < nb; jp += nr {
		panel := dst[jp*kb : (jp+nr)*kb]
		cols := min(nr, nb-jp)
		jb := (j0 + jp) / 2
		for p := 0; p < kp; p++ {
			d0 := panel[2*p*nr : 2*p*nr+nr]
			d1 := panel[(2*p+1)*nr : (2*p+1)*nr+nr]
			for cc := 0; cc < cols; cc += 2 {
				j := jb + cc/2
				var v complex128
				if x.trans {
					v = x.b[j*x.ldb+p0+p]
				} else {
					v = x.b[(p0+p)*x.ldb+j]
				}
				v *= x.alpha
				re, im := real(v), imag(v)
				d0[cc], d0[cc+1] = re, im
				d1[cc], d1[cc+1] = -im, re
			}
			clear(d0[cols:])
			clear(d1[cols:])
		}
	}
}

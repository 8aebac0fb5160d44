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
	complexRun(kern, workers, transA, transB, m, n, k, real(alpha), imag(alpha), a, lda, b, ldb, beta, c, ldc)
}

// Cgemm is [Zgemm] for complex64 matrices, on the float32 kernels of [Sgemm].
func Cgemm(transA, transB bool, m, n, k int, alpha complex64, a []complex64, lda int, b []complex64, ldb int, beta complex64, c []complex64, ldc int) {
	CgemmOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// CgemmOn is Cgemm split over at most workers goroutines, as DgemmOn is Dgemm.
func CgemmOn(workers int, transA, transB bool, m, n, k int, alpha complex64, a []complex64, lda int, b []complex64, ldb int, beta complex64, c []complex64, ldc int) {
	if trivial(transA, transB, m, n, k, alpha, len(a), lda, len(b), ldb, beta, c, ldc) {
		return
	}
	complexRun(kern32, workers, transA, transB, m, n, k, real(alpha), imag(alpha), a, lda, b, ldb, beta, c, ldc)
}

// complexRun is Zgemm or Cgemm after the argument checks: the complex matrices
// (element type X) are seen as real ones of element type R, their memory layout.
func complexRun[X complex64 | complex128, R float](kn *kernel[R], workers int, transA, transB bool, m, n, k int, alphaRe, alphaIm R, a []X, lda int, b []X, ldb int, beta X, c []X, ldc int) {
	var rbeta R = 1
	switch beta {
	case 0:
		rbeta = 0
	case 1:
	default:
		Scale(m, n, beta, c, ldc)
	}
	run(kn, workers, m, 2*n, 2*k,
		&cplxA[R]{a: asReal[R](a), lda: lda, trans: transA},
		&cplxB[R]{b: asReal[R](b), ldb: ldb, trans: transB, alphaRe: alphaRe, alphaIm: alphaIm},
		1, rbeta, asReal[R](c), 2*ldc)
}

// asReal returns the memory of a complex slice as a real slice of twice the
// length (real and imaginary parts interleaved).
func asReal[R float, X complex64 | complex128](s []X) []R {
	return unsafe.Slice((*R)(unsafe.Pointer(unsafe.SliceData(s))), 2*len(s))
}

// cplxA is a complex left operand seen as the real m x 2k matrix
// Ã[i, 2p] = re op(A)[i,p], Ã[i, 2p+1] = im op(A)[i,p]. a holds the complex
// matrix as interleaved real and imaginary parts; lda is in complex elements.
type cplxA[R float] struct {
	a     []R
	lda   int
	trans bool
}

// pack implements packerA; q0 and kb are even because KC is.
func (x *cplxA[R]) pack(dst []R, mr, i0, mb, q0, kb int) {
	p0, kp := q0/2, kb/2
	for ip := 0; ip < mb; ip += mr {
		panel := dst[ip*kb : (ip+mr)*kb]
		rows := min(mr, mb-ip)
		for r := 0; r < rows; r++ {
			i := i0 + ip + r
			if x.trans {
				for p := 0; p < kp; p++ {
					v := x.a[2*((p0+p)*x.lda+i):]
					panel[2*p*mr+r] = v[0]
					panel[(2*p+1)*mr+r] = v[1]
				}
				continue
			}
			src := x.a[2*(i*x.lda+p0):]
			src = src[:2*kp]
			for p := 0; p < kp; p++ {
				panel[2*p*mr+r] = src[2*p]
				panel[(2*p+1)*mr+r] = src[2*p+1]
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
// blocks [re im; -im re] of its entries. b holds the complex matrix as
// interleaved real and imaginary parts; ldb is in complex elements.
type cplxB[R float] struct {
	b                []R
	ldb              int
	trans            bool
	alphaRe, alphaIm R
}

// pack implements packerB; j0, nb, q0 and kb are even because NR and KC are.
func (x *cplxB[R]) pack(dst []R, nr, j0, nb, q0, kb int) {
	p0, kp := q0/2, kb/2
	ar, ai := x.alphaRe, x.alphaIm
	for jp := 0; jp < nb; jp += nr {
		panel := dst[jp*kb : (jp+nr)*kb]
		cols := min(nr, nb-jp)
		jb := (j0 + jp) / 2
		for p := 0; p < kp; p++ {
			d0 := panel[2*p*nr : 2*p*nr+nr]
			d1 := panel[(2*p+1)*nr : (2*p+1)*nr+nr]
			for cc := 0; cc < cols; cc += 2 {
				j := jb + cc/2
				var idx int
				if x.trans {
					idx = 2 * (j*x.ldb + p0 + p)
				} else {
					idx = 2 * ((p0+p)*x.ldb + j)
				}
				vr, vi := x.b[idx], x.b[idx+1]
				// (vr + i vi)(ar + i ai), as Go multiplies complex numbers.
				re, im := vr*ar-vi*ai, vr*ai+vi*ar
				d0[cc], d0[cc+1] = re, im
				d1[cc], d1[cc+1] = -im, re
			}
			clear(d0[cols:])
			clear(d1[cols:])
		}
	}
}

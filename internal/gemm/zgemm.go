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
	complexGemmOn(kern, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Cgemm is [Zgemm] for complex64 matrices, on the float32 kernels of [Sgemm].
func Cgemm(transA, transB bool, m, n, k int, alpha complex64, a []complex64, lda int, b []complex64, ldb int, beta complex64, c []complex64, ldc int) {
	CgemmOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// CgemmOn is Cgemm split over at most workers goroutines, as DgemmOn is Dgemm.
func CgemmOn(workers int, transA, transB bool, m, n, k int, alpha complex64, a []complex64, lda int, b []complex64, ldb int, beta complex64, c []complex64, ldc int) {
	kn := kern32
	if ck := complexKernel32(kn); ck != nil {
		if trivial(transA, transB, m, n, k, alpha, len(a), lda, len(b), ldb, beta, c, ldc) {
			return
		}
		complexKernelRun(ck, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	complexGemmOn(kn, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// complexGemmOn is ZgemmOn and CgemmOn on the real kernel kn (alpha's parts are
// exact in R: complex64's through complex128 and back).
func complexGemmOn[X complex64 | complex128, R float](kn *kernel[R], workers int, transA, transB bool, m, n, k int, alpha X, a []X, lda int, b []X, ldb int, beta X, c []X, ldc int) {
	if trivial(transA, transB, m, n, k, alpha, len(a), lda, len(b), ldb, beta, c, ldc) {
		return
	}
	z := complex128(alpha)
	complexRun(kn, workers, transA, transB, m, n, k, R(real(z)), R(imag(z)), a, lda, b, ldb, beta, c, ldc)
}

// complexRun is Zgemm or Cgemm after the argument checks: the complex matrices
// (element type X) are seen as real ones of element type R, their memory layout.
func complexRun[X complex64 | complex128, R float](kn *kernel[R], workers int, transA, transB bool, m, n, k int, alphaRe, alphaIm R, a []X, lda int, b []X, ldb int, beta X, c []X, ldc int) {
	rbeta := realBeta[R](m, n, beta, c, ldc)
	// Without transposition, Ã is the real view of A with twice the stride,
	// which the real packing (with its vector transposes) handles.
	var pa packerA[R] = &realA[R]{a: asReal[R](a), lda: 2 * lda}
	if transA {
		pa = &cplxA[R]{a: asReal[R](a), lda: lda}
	}
	run(kn, workers, m, 2*n, 2*k, pa,
		&cplxB[R]{b: asReal[R](b), ldb: ldb, trans: transB, alphaRe: alphaRe, alphaIm: alphaIm},
		1, rbeta, asReal[R](c), 2*ldc)
}

// realBeta applies beta to C for a kernel that takes a real beta: it returns 0
// or 1 for those values of beta, and otherwise scales C by beta and returns 1.
func realBeta[R float, X complex64 | complex128](m, n int, beta X, c []X, ldc int) R {
	switch beta {
	case 0:
		return 0
	case 1:
	default:
		Scale(m, n, beta, c, ldc)
	}
	return 1
}

// complexKernelRun is Cgemm after the argument checks on a complex kernel kn
// (kn.aw == 2): C is viewed as the real m x 2n matrix of its parts, op(A) is
// packed by cpanelA, alpha*op(B) by cpanelB, and the k loop runs over the
// complex k.
func complexKernelRun(kn *kernel[float32], workers int, transA, transB bool, m, n, k int, alpha complex64, a []complex64, lda int, b []complex64, ldb int, beta complex64, c []complex64, ldc int) {
	rbeta := realBeta[float32](m, n, beta, c, ldc)
	run(kn, workers, m, 2*n, k, &cpanelA{a: a, lda: lda, trans: transA},
		&cpanelB{b: b, ldb: ldb, trans: transB, alpha: alpha}, 1, rbeta, asReal[float32](c), 2*ldc)
}

// asComplex returns the memory of a real slice of even length as a complex
// slice of half the length (the inverse of asReal).
func asComplex[X complex64 | complex128, R float](s []R) []X {
	return unsafe.Slice((*X)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/2)
}

// cpanelA is op(A) for the complex64 kernel: its micro-panels of mr rows hold,
// per k step, the mr complex values op(A)[i, p] as real and imaginary parts
// (dst[panel*2*mr*kb + 2*(p*mr + r) + {0, 1}]), the layout of a real panel
// of 2*mr rows. a is the complex matrix, lda in elements.
type cpanelA struct {
	a     []complex64
	lda   int
	trans bool
}

// pack implements packerA with 2*mr*kb values per micro-panel (see kernel.aw).
// The panel is that of a real matrix of 8-byte elements, so it is packed as
// float64 values (moves, which keep the bits).
func (x *cpanelA) pack(dst []float32, mr, i0, mb, p0, kb int) {
	d, a := asFloat64(dst), asFloat64(asReal[float32](x.a))
	if x.trans || mr != 4 {
		packPanels(d, mr, a, x.lda, x.trans, i0, mb, p0, kb)
		return
	}
	// Full panels of 4 rows: 4x4 transposes, then the Go loop for the last
	// k steps; a partial panel last.
	full := mb &^ 3
	for ip := 0; ip < full; ip += 4 {
		panel := d[ip*kb : (ip+4)*kb]
		off := (i0+ip)*x.lda + p0
		if done := packRows4Asm(panel, 4, a, off, x.lda, kb); done < kb {
			packRows4(panel[4*done:], 4, a, off+done, x.lda, kb-done)
		}
	}
	if full < mb {
		packPanels(d[full*kb:], 4, a, x.lda, false, i0+full, mb-full, p0, kb)
	}
}

// asFloat64 returns the memory of a float32 slice of even length as a float64
// slice of half the length.
func asFloat64(s []float32) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/2)
}

// cpanelB is alpha*op(B) for the complex64 kernel, seen as the real k x 2n
// matrix of its parts: its micro-panels of nr real columns (nr/2 complex ones)
// hold the rows of alpha*op(B), interleaved. b is the complex matrix, ldb in
// elements.
type cpanelB struct {
	b     []complex64
	ldb   int
	trans bool
	alpha complex64
}

// pack implements packerB; nr, j0 and nb count real columns and are even. The
// panels are those of op(B) as a real matrix of 8-byte elements (packed as
// float64 values, moves that keep the bits), then multiplied by alpha.
func (x *cpanelB) pack(dst []float32, nr, j0, nb, p0, kb int) {
	packPanels(asFloat64(dst), nr/2, asFloat64(asReal[float32](x.b)), x.ldb, !x.trans, j0/2, nb/2, p0, kb)
	if x.alpha != 1 {
		scaleComplex64(dst[:roundUp(nb, nr)*kb], x.alpha)
	}
}

// scaleComplex64 multiplies the complex values of s (interleaved parts) by
// alpha. Whole vectors of 16 values (all of cpanelB's panels, 48*kb values)
// take (vr ar - vi ai, vi ar + vr ai) with one rounding per part after the
// rounded vi ai (or vr ai), as VFMADDSUB computes it; a remainder, or a
// machine without AVX-512, is multiplied as Go multiplies complex numbers.
func scaleComplex64(s []float32, alpha complex64) {
	done := scaleC64Asm(s, alpha)
	c := asComplex[complex64](s[done:])
	for i, v := range c {
		c[i] = v * alpha
	}
}

// asReal returns the memory of a complex slice as a real slice of twice the
// length (real and imaginary parts interleaved).
func asReal[R float, X complex64 | complex128](s []X) []R {
	return unsafe.Slice((*R)(unsafe.Pointer(unsafe.SliceData(s))), 2*len(s))
}

// cplxA is a transposed complex left operand, op(A) = A^T, seen as the real
// m x 2k matrix Ã[i, 2p] = re A[p,i], Ã[i, 2p+1] = im A[p,i]. a holds the
// complex matrix as interleaved real and imaginary parts; lda is in complex
// elements. (Without transposition Ã is a plain real matrix: see complexRun.)
type cplxA[R float] struct {
	a   []R
	lda int
}

// pack implements packerA; q0 and kb are even because KC is.
func (x *cplxA[R]) pack(dst []R, mr, i0, mb, q0, kb int) {
	p0, kp := q0/2, kb/2
	for ip := 0; ip < mb; ip += mr {
		panel := dst[ip*kb : (ip+mr)*kb]
		rows := min(mr, mb-ip)
		for p := 0; p < kp; p++ {
			// Row p0+p of A holds op(A)[i, p0+p] for consecutive i.
			src := x.a[2*((p0+p)*x.lda+i0+ip):]
			src = src[:2*rows]
			d0 := panel[2*p*mr : 2*p*mr+mr]
			d1 := panel[(2*p+1)*mr : (2*p+1)*mr+mr]
			for r := range rows {
				d0[r], d1[r] = src[2*r], src[2*r+1]
			}
			clear(d0[rows:])
			clear(d1[rows:])
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
		if x.trans {
			// Column j of op(B) is row j of B: contiguous in p.
			for cc := 0; cc < cols; cc += 2 {
				src := x.b[2*((jb+cc/2)*x.ldb+p0):]
				src = src[:2*kp]
				for p := 0; p < kp; p++ {
					vr, vi := src[2*p], src[2*p+1]
					// (vr + i vi)(ar + i ai), as Go multiplies complex numbers.
					re, im := vr*ar-vi*ai, vr*ai+vi*ar
					d := panel[2*p*nr+cc : 2*p*nr+cc+2]
					d[0], d[1] = re, im
					d = panel[(2*p+1)*nr+cc : (2*p+1)*nr+cc+2]
					d[0], d[1] = -im, re
				}
			}
			if cols < nr {
				for q := 0; q < kb; q++ {
					clear(panel[q*nr+cols : q*nr+nr])
				}
			}
			continue
		}
		for p := 0; p < kp; p++ {
			d0 := panel[2*p*nr : 2*p*nr+nr]
			d1 := panel[(2*p+1)*nr : (2*p+1)*nr+nr]
			src := x.b[2*((p0+p)*x.ldb+jb):]
			src = src[:cols]
			d0, d1 = d0[:len(src)], d1[:len(src)]
			for c := 0; c+1 < len(src); c += 2 {
				vr, vi := src[c], src[c+1]
				re, im := vr*ar-vi*ai, vr*ai+vi*ar
				d0[c], d0[c+1] = re, im
				d1[c], d1[c+1] = -im, re
			}
			clear(panel[2*p*nr+cols : 2*p*nr+nr])
			clear(panel[(2*p+1)*nr+cols : (2*p+1)*nr+nr])
		}
	}
}

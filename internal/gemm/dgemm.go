package gemm

import (
	"runtime"
	"sync"
	"unsafe"
)

// Panic messages for invalid arguments, as in gonum's blas implementation.
const (
	mLT0   = "gemm: m < 0"
	nLT0   = "gemm: n < 0"
	kLT0   = "gemm: k < 0"
	badLdA = "gemm: bad leading dimension of A"
	badLdB = "gemm: bad leading dimension of B"
	badLdC = "gemm: bad leading dimension of C"
	shortA = "gemm: insufficient length of a"
	shortB = "gemm: insufficient length of b"
	shortC = "gemm: insufficient length of c"
)

// Dgemm computes C = alpha*op(A)*op(B) + beta*C, where op(X) is X if the
// corresponding trans flag is false and X^T otherwise. op(A) is m x k, op(B)
// is k x n and C is m x n; all matrices are row-major with row strides lda,
// ldb and ldc (so A is m x k with lda >= k when transA is false, and k x m
// with lda >= m when it is true).
//
// Dgemm panics, like gonum's Implementation.Dgemm, if a size is negative, a
// stride is smaller than the row length or a slice is too short. If beta is
// zero, C is not read before being overwritten.
//
// A product of at least parallelMin multiply-adds is split over GOMAXPROCS
// goroutines; DgemmOn sets that number.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	DgemmOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DgemmOn is Dgemm split over at most workers goroutines; with workers <= 1 it runs
// on the calling goroutine alone (for a caller that runs independent products in
// parallel itself).
func DgemmOn(workers int, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	realGemmOn(kern, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// realGemmOn is DgemmOn and SgemmOn on the kernel kn.
func realGemmOn[R float](kn *kernel[R], workers int, transA, transB bool, m, n, k int, alpha R, a []R, lda int, b []R, ldb int, beta R, c []R, ldc int) {
	if trivial(transA, transB, m, n, k, alpha, len(a), lda, len(b), ldb, beta, c, ldc) {
		return
	}
	// The direct path first (as run would take it), before the operands are
	// boxed as packers: a batch of small products (tensor.GemmBatch) makes no
	// allocation per product.
	if (workers < 2 || m*n*k < parallelMin) && directReal(kn, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	run(kn, workers, m, n, k,
		&realA[R]{a: a, lda: lda, trans: transA},
		&realB[R]{b: b, ldb: ldb, trans: transB},
		alpha, beta, c, ldc)
}

// checkArgs validates the arguments of Dgemm and Zgemm (lengths in elements).
func checkArgs(transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) {
	if m < 0 {
		panic(mLT0)
	}
	if n < 0 {
		panic(nLT0)
	}
	if k < 0 {
		panic(kLT0)
	}
	if transA {
		if lda < max(1, m) {
			panic(badLdA)
		}
	} else if lda < max(1, k) {
		panic(badLdA)
	}
	if transB {
		if ldb < max(1, k) {
			panic(badLdB)
		}
	} else if ldb < max(1, n) {
		panic(badLdB)
	}
	if ldc < max(1, n) {
		panic(badLdC)
	}
	if m == 0 || n == 0 {
		return
	}
	if transA {
		if lenA < (k-1)*lda+m {
			panic(shortA)
		}
	} else if lenA < (m-1)*lda+k {
		panic(shortA)
	}
	if transB {
		if lenB < (n-1)*ldb+k {
			panic(shortB)
		}
	} else if lenB < (k-1)*ldb+n {
		panic(shortB)
	}
	if lenC < (m-1)*ldc+n {
		panic(shortC)
	}
}

// trivial checks the arguments of Dgemm or Zgemm (checkArgs) and does the products
// that multiply nothing: it reports true, after setting C = beta C when alpha or k
// is zero, when that is all there is to do.
func trivial[T element](transA, transB bool, m, n, k int, alpha T, lenA, lda, lenB, ldb int, beta T, c []T, ldc int) bool {
	checkArgs(transA, transB, m, n, k, lenA, lda, lenB, ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return true
	}
	if alpha == 0 || k == 0 {
		Scale(m, n, beta, c, ldc)
		return true
	}
	return false
}

// element is the type set of the matrices of this package: it includes
// tensor.Element (float64 | complex128), which this package, below tensor in the
// layering, cannot import. It is the constraint of [Scale].
type element interface {
	float32 | float64 | complex64 | complex128
}

// float is the element type of the real driver and kernels.
type float interface{ float32 | float64 }

// Scale sets C = beta*C for the m x n row-major matrix C with row stride ldc, and
// C = 0 when beta is zero, without reading C (so NaN and Inf are cleared). It is the
// beta step of [Dgemm] and [Zgemm] when alpha or k is zero, and of tensor's GEMM
// paths that bypass the packed kernels.
func Scale[T element](m, n int, beta T, c []T, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packerA packs a block of the left operand (m x k as seen by the product).
type packerA[R float] interface {
	// pack writes rows [i0, i0+mb) and columns [p0, p0+kb) into dst as
	// ceil(mb/mr) micro-panels of mr*kb values, each stored k-major
	// (dst[panel*mr*kb + p*mr + r]), zero-padding rows beyond mb.
	pack(dst []R, mr, i0, mb, p0, kb int)
}

// packerB packs a block of the right operand (k x n as seen by the product).
type packerB[R float] interface {
	// pack writes rows [p0, p0+kb) and columns [j0, j0+nb) into dst as
	// ceil(nb/nr) micro-panels of kb*nr values, each stored k-major
	// (dst[panel*nr*kb + p*nr + c]), zero-padding columns beyond nb.
	pack(dst []R, nr, j0, nb, p0, kb int)
}

// workspace holds one worker's packing buffers and edge scratch tile.
type workspace[R float] struct {
	a, b, tmp []R
}

// pools are the sync.Pools of the buffers of one element type.
type pools[R float] struct {
	workspaces sync.Pool // *workspace[R], one per goroutine of a product
	shared     sync.Pool // *shared[R], one per parallel product
}

var (
	pools32 = &pools[float32]{
		workspaces: sync.Pool{New: func() any { return new(workspace[float32]) }},
		shared:     sync.Pool{New: func() any { return new(shared[float32]) }},
	}
	pools64 = &pools[float64]{
		workspaces: sync.Pool{New: func() any { return new(workspace[float64]) }},
		shared:     sync.Pool{New: func() any { return new(shared[float64]) }},
	}
)

// poolsFor returns the pools of element type R.
func poolsFor[R float]() *pools[R] {
	var z R
	if _, ok := any(z).(float32); ok {
		return any(pools32).(*pools[R])
	}
	return any(pools64).(*pools[R])
}

// aligned returns a slice of length n whose first element is 64-byte aligned,
// reusing buf when it is large enough.
func aligned[R float](buf []R, n int) []R {
	if cap(buf) >= n && uintptr(unsafe.Pointer(unsafe.SliceData(buf[:1])))%64 == 0 {
		return buf[:n]
	}
	size := int(unsafe.Sizeof(R(0)))
	s := make([]R, n+64/size)
	off := int((64-uintptr(unsafe.Pointer(&s[0]))%64)%64) / size
	return s[off : off+n : off+n]
}

// serial computes rows [i0, i1) and columns [j0, j1) of C on one goroutine
// with the blocked BLIS loop nest.
func serial[R float](kn *kernel[R], i0, i1, j0, j1, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) {
	pl := poolsFor[R]()
	ws := pl.workspaces.Get().(*workspace[R])
	defer pl.workspaces.Put(ws)
	mr, nr := kn.mr, kn.nr
	kcMax := min(kn.kc, k)
	mcMax := min(kn.mc, roundUp(i1-i0, mr))
	ncMax := min(kn.nc, roundUp(j1-j0, nr))
	ws.a = aligned(ws.a, mcMax*kcMax*kn.aWidth())
	ws.b = aligned(ws.b, ncMax*kcMax)
	ws.tmp = aligned(ws.tmp, mr*nr)

	for jc := j0; jc < j1; jc += kn.nc {
		nc := min(kn.nc, j1-jc)
		for pc := 0; pc < k; pc += kn.kc {
			kc := min(kn.kc, k-pc)
			pb.pack(ws.b, nr, jc, nc, pc, kc)
			bt := beta
			if pc > 0 {
				bt = 1
			}
			for ic := i0; ic < i1; ic += kn.mc {
				mc := min(kn.mc, i1-ic)
				pa.pack(ws.a, mr, ic, mc, pc, kc)
				macroKernel(kn, kc, ws.a, ws.b, ws.tmp, mc, nc, c[ic*ldc+jc:], ldc, alpha, bt)
			}
		}
	}
}

// macroKernel multiplies a packed mc x kc block of A (pa) by a packed kc x nc
// block of B (pb) into C (whose top-left element is c[0]); tmp is the mr x nr
// scratch tile for partial tiles.
func macroKernel[R float](kn *kernel[R], kc int, pa, pb, tmp []R, mc, nc int, c []R, ldc int, alpha, beta R) {
	mr, nr, aw := kn.mr, kn.nr, kn.aWidth()
	for jr := 0; jr < nc; jr += nr {
		nb := min(nr, nc-jr)
		bp := pb[jr*kc:]
		for ir := 0; ir < mc; ir += mr {
			mb := min(mr, mc-ir)
			ap := pa[ir*kc*aw:]
			off := ir*ldc + jr
			if mb == mr && nb == nr {
				kn.fn(kc, ap, bp, c[off:], ldc, alpha, beta)
				continue
			}
			edge := kn.edge != nil && nb <= kn.edgeN
			if edge && mb == mr && nb == kn.edgeN {
				kn.edge(kc, ap, bp, nr, c[off:], ldc, alpha, beta)
				continue
			}
			// Partial tile: compute into tmp, then merge the valid part.
			if edge {
				kn.edge(kc, ap, bp, nr, tmp, nr, alpha, 0)
			} else {
				kn.fn(kc, ap, bp, tmp, nr, alpha, 0)
			}
			mergeTile(tmp, nr, c[off:], ldc, mb, nb, beta)
		}
	}
}

// mergeTile merges the mb x nb top-left part of the scratch tile tmp (row stride
// nr), computed as alpha*AB with beta 0, into C: C = tmp + beta*C, without reading
// C when beta is zero.
func mergeTile[R float](tmp []R, nr int, c []R, ldc, mb, nb int, beta R) {
	for i := 0; i < mb; i++ {
		t := tmp[i*nr : i*nr+nb]
		row := c[i*ldc : i*ldc+nb]
		switch beta {
		case 0:
			copy(row, t)
		case 1:
			for j, v := range t {
				row[j] += v
			}
		default:
			for j, v := range t {
				row[j] = v + beta*row[j]
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

package tensor

import (
	"runtime"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/blas/cblas64"

	cr "github.com/chainrules-go/chainrules/chainrules"
	kernels "github.com/chainrules-go/chainrules/internal/gemm"
	"github.com/chainrules-go/chainrules/internal/vmath"
)

// Element is the double-precision part of [Numeric]: float64 or complex128, the
// element types of the kernels written for double precision only.
type Element interface{ float64 | complex128 }

// Gemm computes the matrix product
//
//	C = alpha op(A) op(B) + beta C,   op(A) m×k, op(B) k×n, C m×n,
//
// on row-major matrices stored in slices, with the conventions of BLAS's xGEMM
// (gonum's blas64): element (i, j) of a matrix X with leading dimension ldx is
// x[i*ldx + j], and op(X) is X, or its plain transpose X^T when the flag is set
// (never the conjugate transpose, also for complex128). So A is stored m×k, or k×m
// when transA, and lda must be at least max(1, number of columns stored); likewise
// B (k×n, or n×k when transB) and C (m×n, ldc >= max(1, n)).
//
// When beta is zero C is overwritten and never read, so NaN or Inf in C do not
// propagate; when alpha is zero or k is 0, A and B are not read. C may share
// storage with A or B: see GemmBatch.
//
// Gemm is [GemmBatch] with a batch of one: every matrix product of the project
// (MatMul, BatchMatMul, the contractions of package einsum) goes through
// GemmBatch, and [UseBLAS64] decides whether it runs on the project's packed
// kernels or on gonum's blas64 / cblas128 implementation. It returns an error
// wrapping cr.ErrInvalidArgument, and leaves C unchanged, if a size is
// negative, a leading dimension is too small or a slice is too short.
func Gemm[T Numeric](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) error {
	return GemmBatch(transA, transB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// GemmBatch computes the strided batch of matrix products
//
//	C_p = alpha op(A_p) op(B_p) + beta C_p,   p = 0, ..., batch-1,
//
// where A_p, B_p and C_p are the matrices of [Gemm] that start at a[p*strideA],
// b[p*strideB] and c[p*strideC]: element (i, j) of A_p is a[p*strideA + i*lda + j]
// (the layout of cuBLAS's gemmStridedBatched, and of a row-major tensor [batch, rows,
// cols] when the strides are rows*cols and the leading dimensions cols). Strides
// are at least 0; a stride of 0 for A or B uses one matrix for the whole batch. The
// matrices C_p must not overlap one another, or the result is unspecified. A or B
// may share elements with C: then the elements of that operand that the batch
// reads are copied first, so that the result is the one of separate storage (as
// NumPy's matmul with out=). Disjoint blocks of one matrix, such as the panels of a
// blocked factorisation, are told apart exactly when there is one product, and are
// not copied.
//
// With [UseBLAS64] off (the default) each product runs on the project's packed
// AVX2 / AVX-512 GEMM, except matrix-vector and outer-product shapes (m, n or k
// equal to 1, with contiguous vectors), which are memory-bound and run plain
// loops. With it on, each product with k > 0 and alpha != 0 is one call of
// blas64.Implementation().Dgemm or cblas128.Implementation().Zgemm (for float32
// and complex64, blas32's Sgemm and cblas64's Cgemm), whatever its shape; the
// setting is read once per call.
//
// The element type is any of [Numeric]. A float32 or complex64 product
// accumulates in single precision, in internal/gemm's blocked order: each element
// of C is within gamma_{k+4} (|alpha| sum_l |op(A)_il| |op(B)_lj| + |beta| |C_ij|)
// of the exact value, gamma_n = n u / (1 - n u), u = 2^-24 (the bound its tests
// check); the memory-bound matrix-vector shapes sum with four accumulators, within
// gamma_{k/4+2} likewise.
//
// GemmBatch returns an error wrapping cr.ErrInvalidArgument, and leaves C
// unchanged, if batch, m, n or k is negative, a stride is negative, a leading
// dimension is smaller than max(1, the number of columns stored) or a slice is
// shorter than its batch of matrices:
//
//	len(a) >= (batch-1)*strideA + (rows(A)-1)*lda + cols(A)   (checked when m, n, k > 0),
//
// likewise for b, and for c when m, n > 0.
func GemmBatch[T Numeric](transA, transB bool, m, n, k int, alpha T, a []T, lda, strideA int, b []T, ldb, strideB int, beta T, c []T, ldc, strideC, batch int) error {
	return gemmBatchOn(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
}

// GemmOn is [Gemm] on at most workers goroutines, where Gemm takes GOMAXPROCS of
// them: for code that runs independent products in parallel itself, such as the
// blocked factorisations of package linalg, which solve blocks of right-hand
// sides on goroutines of their own, each block's products with workers = 1. On
// the project's kernels the result does not depend on workers, bit for bit; with
// [UseBLAS64] on, the product goes to the BLAS as with Gemm, which chooses its
// threads itself. Its errors are Gemm's.
func GemmOn[T Numeric](workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) error {
	return gemmBatchOn(max(workers, 1), transA, transB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// gemmBatchOn is GemmBatch on at most workers goroutines.
func gemmBatchOn[T Numeric](workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda, strideA int, b []T, ldb, strideB int, beta T, c []T, ldc, strideC, batch int) error {
	if err := checkGemm(transA, transB, m, n, k, len(a), lda, strideA, len(b), ldb, strideB, len(c), ldc, strideC, batch); err != nil {
		return err
	}
	if batch > 0 && m > 0 && n > 0 && k > 0 && alpha != 0 {
		rowsA, colsA, rowsB, colsB := m, k, k, n
		if transA {
			rowsA, colsA = k, m
		}
		if transB {
			rowsB, colsB = n, k
		}
		a = readApart(a, batch, strideA, rowsA, lda, colsA, c, strideC, m, ldc, n)
		b = readApart(b, batch, strideB, rowsB, ldb, colsB, c, strideC, m, ldc, n)
	}
	gemmBatch(useBLAS64.Load(), workers, transA, transB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
	return nil
}

// checkGemm validates the arguments of GemmBatch (slice lengths in elements).
func checkGemm(transA, transB bool, m, n, k, lenA, lda, strideA, lenB, ldb, strideB, lenC, ldc, strideC, batch int) error {
	const op = "tensor.GemmBatch"
	if m < 0 || n < 0 || k < 0 || batch < 0 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: negative size (m %d, n %d, k %d, batch %d)", op, m, n, k, batch)
	}
	if strideA < 0 || strideB < 0 || strideC < 0 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: negative batch stride (A %d, B %d, C %d)", op, strideA, strideB, strideC)
	}
	// Stored shapes: A is m×k (k×m when transA), B is k×n (n×k when transB).
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	if lda < max(1, colsA) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: lda %d is less than the %d columns of A", op, lda, colsA)
	}
	if ldb < max(1, colsB) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: ldb %d is less than the %d columns of B", op, ldb, colsB)
	}
	if ldc < max(1, n) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: ldc %d is less than the %d columns of C", op, ldc, n)
	}
	if batch == 0 || m == 0 || n == 0 {
		return nil
	}
	if !fits(lenC, batch, strideC, m, ldc, n) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: c has %d elements, too few for %d matrices %d×%d (ldc %d, stride %d)", op, lenC, batch, m, n, ldc, strideC)
	}
	if k == 0 {
		return nil
	}
	if !fits(lenA, batch, strideA, rowsA, lda, colsA) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: a has %d elements, too few for %d matrices %d×%d (lda %d, stride %d)", op, lenA, batch, rowsA, colsA, lda, strideA)
	}
	if !fits(lenB, batch, strideB, rowsB, ldb, colsB) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: b has %d elements, too few for %d matrices %d×%d (ldb %d, stride %d)", op, lenB, batch, rowsB, colsB, ldb, strideB)
	}
	return nil
}

// fits reports whether length >= (batch-1)*stride + (rows-1)*ld + cols, for
// positive batch, rows and cols, ld >= cols and stride >= 0, without overflow.
func fits(length, batch, stride, rows, ld, cols int) bool {
	if cols > length {
		return false
	}
	r := length - cols
	if rows-1 > r/ld {
		return false
	}
	r -= (rows - 1) * ld
	return batch == 1 || stride == 0 || batch-1 <= r/stride
}

// gemmBatch is GemmBatch on valid arguments, with the backend chosen by useBLAS,
// on at most workers goroutines.
//
// With the project's kernels and several cores, a batch of products each smaller
// than batchSplitMax multiply-adds (attention heads, the matrices of a batched
// matmul) runs its products in parallel, each on one goroutine: splitting every
// small product over the cores instead would re-pack its shared operand on each
// core and synchronise per product. Larger products split themselves.
func gemmBatch[T Numeric](useBLAS bool, workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda, strideA int, b []T, ldb, strideB int, beta T, c []T, ldc, strideC, batch int) {
	if m == 0 || n == 0 {
		return
	}
	one := func(p, workers int) {
		cp := c[p*strideC:]
		if k == 0 || alpha == 0 {
			// A and B are not read (and may be empty); only C = beta C remains.
			kernels.Scale(m, n, beta, cp, ldc)
			return
		}
		ap, bp := a[p*strideA:], b[p*strideB:]
		if useBLAS {
			gemmBLAS(transA, transB, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, ldc)
		} else {
			gemmNative(workers, transA, transB, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, ldc)
		}
	}
	work := float64(m) * float64(n) * float64(k)
	if useBLAS || batch < 2 || workers < 2 || work >= batchSplitMax || work*float64(batch) < batchParallelMin {
		for p := range batch {
			one(p, workers)
		}
		return
	}
	kernels.ForEach(batch, workers, func(p int) { one(p, 1) })
}

// A batch of products runs them in parallel when each is below batchSplitMax
// multiply-adds (256^3: larger products split well by themselves) and the batch
// has at least batchParallelMin of them in all (what one product needs to be
// split, see internal/gemm).
const (
	batchSplitMax    = 1 << 24
	batchParallelMin = 1 << 21
)

// gemmBLAS runs one product on gonum's blas64 / cblas128 implementation.
func gemmBLAS[T Numeric](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	switch cc := any(c).(type) {
	case []float64:
		blas64.Implementation().Dgemm(blasTrans(transA), blasTrans(transB), m, n, k,
			any(alpha).(float64), any(a).([]float64), lda, any(b).([]float64), ldb,
			any(beta).(float64), cc, ldc)
	case []complex128:
		cblas128.Implementation().Zgemm(blasTrans(transA), blasTrans(transB), m, n, k,
			any(alpha).(complex128), any(a).([]complex128), lda, any(b).([]complex128), ldb,
			any(beta).(complex128), cc, ldc)
	case []float32:
		blas32.Implementation().Sgemm(blasTrans(transA), blasTrans(transB), m, n, k,
			any(alpha).(float32), any(a).([]float32), lda, any(b).([]float32), ldb,
			any(beta).(float32), cc, ldc)
	case []complex64:
		cblas64.Implementation().Cgemm(blasTrans(transA), blasTrans(transB), m, n, k,
			any(alpha).(complex64), any(a).([]complex64), lda, any(b).([]complex64), ldb,
			any(beta).(complex64), cc, ldc)
	}
}

// gemmNative runs one product, on valid arguments with m, n > 0, on the project's
// own code: plain loops for the memory-bound shapes (a matrix times a vector, a
// vector times a matrix, an outer product) when their vectors are contiguous, and
// the packed kernels of internal/gemm for the rest.
func gemmNative[T Numeric](workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if k == 0 || alpha == 0 {
		kernels.Scale(m, n, beta, c, ldc)
		return
	}
	// Strides of the vector operands: op(B)'s only column when n == 1 (incX), op(A)'s
	// only row when m == 1 (incY), and when k == 1 op(A)'s column (incU) and op(B)'s
	// row (incV).
	incX, incY, incU, incV := ldb, 1, lda, 1
	if transB {
		incX, incV = 1, ldb
	}
	if transA {
		incY, incU = lda, 1
	}
	switch {
	case n == 1 && !transA && (incX == 1 || k == 1):
		// c_i = alpha A[i, :]·x + beta c_i: rows of A dotted with x.
		splitMemBound(workers, m, k, 4, func(lo, hi int) {
			gemv(hi-lo, k, alpha, a[lo*lda:], lda, b[:k], beta, c[lo*ldc:], ldc)
		})
		return
	case n == 1 && transA && (incX == 1 || k == 1) && (ldc == 1 || m == 1):
		// A stored k×m: c = beta c + alpha sum_l x_l A[l, :].
		splitMemBound(workers, m, k, 8, func(lo, hi int) {
			combRows(k, hi-lo, alpha, b, a[lo:], lda, beta, c[lo:hi])
		})
		return
	case m == 1 && transB && (incY == 1 || k == 1):
		// B stored n×k: c_j = alpha B[j, :]·y + beta c_j.
		splitMemBound(workers, n, k, 4, func(lo, hi int) {
			gemv(hi-lo, k, alpha, b[lo*ldb:], ldb, a[:k], beta, c[lo:], 1)
		})
		return
	case m == 1 && !transB && (incY == 1 || k == 1):
		// c = beta c + alpha sum_l y_l B[l, :].
		splitMemBound(workers, n, k, 8, func(lo, hi int) {
			combRows(k, hi-lo, alpha, a, b[lo:], ldb, beta, c[lo:hi])
		})
		return
	case k == 1 && (incV == 1 || n == 1):
		// Outer product: C[i, :] = alpha u_i v + beta C[i, :].
		v := b[:n]
		splitMemBound(workers, m, n, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				axpby(c[i*ldc:i*ldc+n], scaled(alpha, a[i*incU]), v, beta)
			}
		})
		return
	}
	switch cc := any(c).(type) {
	case []float64:
		kernels.DgemmOn(workers, transA, transB, m, n, k, any(alpha).(float64), any(a).([]float64), lda, any(b).([]float64), ldb, any(beta).(float64), cc, ldc)
	case []complex128:
		kernels.ZgemmOn(workers, transA, transB, m, n, k, any(alpha).(complex128), any(a).([]complex128), lda, any(b).([]complex128), ldb, any(beta).(complex128), cc, ldc)
	case []float32:
		kernels.SgemmOn(workers, transA, transB, m, n, k, any(alpha).(float32), any(a).([]float32), lda, any(b).([]float32), ldb, any(beta).(float32), cc, ldc)
	case []complex64:
		kernels.CgemmOn(workers, transA, transB, m, n, k, any(alpha).(complex64), any(a).([]complex64), lda, any(b).([]complex64), ldb, any(beta).(complex64), cc, ldc)
	}
}

// Thresholds of splitMemBound, in elements of the matrix operand (of C, for an
// outer product). The matrix-vector and outer-product shapes stream their matrix
// once, at about 0.1 ns an element on one core. Below memBoundMin (a 16 MiB
// float64 matrix) the split measured no faster on the project's 2-core machine,
// in interleaved runs in one process: 512^2 0.97x, 1024^2 0.71-0.94x (the matrix
// stays in the cache of the core that reads it alone, and the second goroutine's
// start costs more than its half saves); at 2048^2 the matrix-vector product took
// 0.49 against 0.73 ms and the outer product 0.82 against 1.36 ms with the
// second core idle. memBoundGrain bounds a chunk from below.
const (
	memBoundMin   = 1 << 21
	memBoundGrain = 1 << 16
)

// splitMemBound calls body on chunks [lo, hi) that cover [0, n), each index
// costing cost elements of memory traffic: on the calling goroutine alone when
// workers < 2 or the work is less than memBoundMin elements, otherwise on
// up to workers goroutines, about four chunks each (kernels.ForEachOwned). Each
// goroutine takes a contiguous share of the chunks, the same from call to call,
// so that on idle cores the part of the matrix it streams is still in its core's
// caches from the call before (a 2048x2048 float64 matrix is 32 MiB, the size of
// this machine's L3), and a goroutine on a busy core has its share taken from it
// rather than holding up the call. Chunk boundaries are multiples of align: gemv
// sums rows by groups of four from the start of its range, and a row's rounding
// must not depend on the split, so the result is the same bit for bit on any
// number of goroutines; 8 keeps the columns that two goroutines write apart by a
// 64-byte cache line of float64.
func splitMemBound(workers, n, cost, align int, body func(lo, hi int)) {
	least := roundUpTo(max(1, memBoundGrain/max(cost, 1)), align)
	if workers = min(workers, n/least); workers < 2 || n*cost < memBoundMin {
		body(0, n)
		return
	}
	chunk := max(least, roundUpTo((n+4*workers-1)/(4*workers), align))
	kernels.ForEachOwned((n+chunk-1)/chunk, workers, func(i int) {
		lo := i * chunk
		body(lo, min(lo+chunk, n))
	})
}

// roundUpTo returns the least multiple of m that is at least x (x >= 0, m > 0).
func roundUpTo(x, m int) int { return (x + m - 1) / m * m }

// scaled returns alpha*x, and x itself when alpha is 1 (so that a complex Inf is
// not turned into NaN by the multiplication by 1+0i).
func scaled[T Numeric](alpha, x T) T {
	if alpha == 1 {
		return x
	}
	return alpha * x
}

// gemv computes c[i*ldc] = alpha (sum_l a[i*lda+l] x_l) + beta c[i*ldc] for i < m
// (c not read when beta is zero), four rows at a time so that four streams of a are
// in flight and x is read once per four rows.
func gemv[T Numeric](m, k int, alpha T, a []T, lda int, x []T, beta T, c []T, ldc int) {
	x = x[:k]
	if dot := longDot[T](); dot != nil && k >= 256 {
		// Long real rows: one vector dot product a row, which streams a at the
		// memory's bandwidth.
		for i := range m {
			store(&c[i*ldc], alpha, dot(a[i*lda:i*lda+k], x), beta)
		}
		return
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		a0 := a[i*lda : i*lda+k]
		a1 := a[(i+1)*lda : (i+1)*lda+k]
		a2 := a[(i+2)*lda : (i+2)*lda+k]
		a3 := a[(i+3)*lda : (i+3)*lda+k]
		var s0, s1, s2, s3 T
		for l, v := range x {
			s0 += a0[l] * v
			s1 += a1[l] * v
			s2 += a2[l] * v
			s3 += a3[l] * v
		}
		store(&c[i*ldc], alpha, s0, beta)
		store(&c[(i+1)*ldc], alpha, s1, beta)
		store(&c[(i+2)*ldc], alpha, s2, beta)
		store(&c[(i+3)*ldc], alpha, s3, beta)
	}
	for ; i < m; i++ {
		store(&c[i*ldc], alpha, dot(a[i*lda:i*lda+k], x), beta)
	}
}

// longDot returns the dot product gemv takes for rows of 256 or more, nil for
// complex T: vmath.Dot for float64; for float32, vmath.Dot32 (each product
// rounded to float32 and summed in float64, eight partial sums combined
// pairwise) rounded to float32 once. That float64 sum adds at most about
// (k/8 + 3) 2^-53 sum_l |a_l x_l|, far below float32's own rounding, where a
// float32 running sum would add up to k 2^-24 of it.
func longDot[T Numeric]() func(x, y []T) T {
	var dot any
	switch any(T(0)).(type) {
	case float64:
		dot = vmath.Dot
	case float32:
		dot = func(x, y []float32) float32 { return float32(vmath.Dot32(x, y)) }
	default:
		return nil
	}
	return dot.(func(x, y []T) T)
}

// store sets *dst = alpha s + beta *dst, not reading *dst when beta is zero.
func store[T Numeric](dst *T, alpha, s, beta T) {
	s = scaled(alpha, s)
	if beta != 0 {
		s += beta * *dst
	}
	*dst = s
}

// dot returns sum_i x_i y_i (no conjugation), with four accumulators.
func dot[T Numeric](x, y []T) T {
	y = y[:len(x)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// combRows computes c = beta c + alpha sum_{l<k} w_l R_l for k >= 1, where the
// row R_l is r[l*ldr : l*ldr+n] and c has length n (c not read when beta is zero).
func combRows[T Numeric](k, n int, alpha T, w []T, r []T, ldr int, beta T, c []T) {
	axpby(c, scaled(alpha, w[0]), r[:n], beta)
	for l := 1; l < k; l++ {
		axpy(c, scaled(alpha, w[l]), r[l*ldr:l*ldr+n])
	}
}

// axpy computes y += s x (float64 rows of vecMin elements or more with vmath's
// vectorised Axpy, which rounds the product and the sum as this loop does).
func axpy[T Numeric](y []T, s T, x []T) {
	if yf, ok := any(y).([]float64); ok && len(yf) >= vecMin {
		vmath.Axpy(yf, any(s).(float64), any(x).([]float64))
		return
	}
	x = x[:len(y)]
	for i := range y {
		y[i] += s * x[i]
	}
}

// axpby computes y = s x + beta y, not reading y when beta is zero.
func axpby[T Numeric](y []T, s T, x []T, beta T) {
	x = x[:len(y)]
	if yf, ok := any(y).([]float64); ok && len(yf) >= vecMin && (beta == 0 || beta == 1) {
		if beta == 0 {
			vmath.Scale(yf, any(x).([]float64), any(s).(float64))
		} else {
			vmath.Axpy(yf, any(s).(float64), any(x).([]float64))
		}
		return
	}
	switch beta {
	case 0:
		for i := range y {
			y[i] = s * x[i]
		}
	case 1:
		for i := range y {
			y[i] += s * x[i]
		}
	default:
		for i := range y {
			y[i] = s*x[i] + beta*y[i]
		}
	}
}

package tensor

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	kernels "github.com/chainrules-go/chainrules/internal/gemm"
)

// GemmRows computes the matrix product
//
//	C = alpha op(A) B + beta C,   op(A) m×k, B k×n, C m×n,
//
// where B is not a strided matrix but k rows of n elements at arbitrary offsets
// of one slice, B[p, j] = b[rowB[p] + j] (the rows may overlap): the implicit
// GEMM of a convolution, whose im2col rows are shifted windows of the padded
// image, packed straight from it instead of materialised. A, C, alpha, beta and
// op(A) follow [Gemm]; float32 and float64 only. It runs on at most workers
// goroutines (as [GemmOn]) and gives Gemm's result on the materialised B bit
// for bit. With [UseBLAS64] on, or when b overlaps c, B is materialised and the
// product is Gemm's. It returns an error wrapping cr.ErrInvalidArgument, and
// leaves C unchanged, for a negative size, a leading dimension too small, a
// slice too short, fewer than k offsets or a row that leaves b.
func GemmRows[R float32 | float64](workers int, transA bool, m, n, k int, alpha R, a []R, lda int, b []R, rowB []int, beta R, c []R, ldc int) error {
	if err := checkOffsets("tensor.GemmRows", m, n, k, rowB, k, n, len(b)); err != nil {
		return err
	}
	if err := checkGemm(transA, false, m, n, k, len(a), lda, 0, n*k, max(n, 1), 0, len(c), ldc, 0, 1); err != nil {
		return err
	}
	if useBLAS64.Load() || offsetsOverlap(b, rowB[:k], n, c, m, n, ldc) {
		bm := make([]R, k*n)
		for p, o := range rowB[:k] {
			copy(bm[p*n:(p+1)*n], b[o:o+n])
		}
		return GemmOn(workers, transA, false, m, n, k, alpha, a, lda, bm, max(n, 1), beta, c, ldc)
	}
	kernels.RowsB(max(workers, 1), transA, m, n, k, alpha, a, lda, b, rowB, beta, c, ldc)
	return nil
}

// GemmCols is [GemmRows] with B given by its n columns of k elements at
// arbitrary offsets of one slice, B[p, j] = b[colB[j] + p] (the columns may
// overlap): the transpose of a matrix of rows at offsets, as in G X^T for the
// weight gradient of a convolution. Its errors are GemmRows' (fewer than n
// offsets, or a column that leaves b).
func GemmCols[R float32 | float64](workers int, transA bool, m, n, k int, alpha R, a []R, lda int, b []R, colB []int, beta R, c []R, ldc int) error {
	if err := checkOffsets("tensor.GemmCols", m, n, k, colB, n, k, len(b)); err != nil {
		return err
	}
	if err := checkGemm(transA, false, m, n, k, len(a), lda, 0, n*k, max(n, 1), 0, len(c), ldc, 0, 1); err != nil {
		return err
	}
	if useBLAS64.Load() || offsetsOverlap(b, colB[:n], k, c, m, n, ldc) {
		bm := make([]R, k*n)
		for j, o := range colB[:n] {
			for p, v := range b[o : o+k] {
				bm[p*n+j] = v
			}
		}
		return GemmOn(workers, transA, false, m, n, k, alpha, a, lda, bm, max(n, 1), beta, c, ldc)
	}
	kernels.ColsB(max(workers, 1), transA, m, n, k, alpha, a, lda, b, colB, beta, c, ldc)
	return nil
}

// checkOffsets checks that offs holds want offsets of runs of size elements,
// each inside a slice of length lenB.
func checkOffsets(op string, m, n, k int, offs []int, want, size, lenB int) error {
	if m < 0 || n < 0 || k < 0 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: negative size (m %d, n %d, k %d)", op, m, n, k)
	}
	if len(offs) < want {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: %d offsets for %d runs of B", op, len(offs), want)
	}
	for i, o := range offs[:want] {
		if o < 0 || o+size > lenB {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: run %d of B at %d..%d leaves b of length %d", op, i, o, o+size, lenB)
		}
	}
	return nil
}

// offsetsOverlap reports whether a run of size elements at one of offs in b
// shares memory with the m×n matrix C of leading dimension ldc.
func offsetsOverlap[R float32 | float64](b []R, offs []int, size int, c []R, m, n, ldc int) bool {
	if size == 0 || m == 0 || n == 0 || len(offs) == 0 {
		return false
	}
	lo, hi := offs[0], offs[0]
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	span := hi - lo + size
	return matrixOverlap(b[lo:], 1, span, span, c, m, n, ldc)
}

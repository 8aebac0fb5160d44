package lapack

import (
	"runtime"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// The blocked factorisations split their level-3 work over goroutines at the
// coarsest grain that has independent parts: a triangular solve by blocks of
// columns of its right-hand sides (each column's solution is its own), the
// symmetric updates of the Cholesky factorisation and of the tridiagonal
// reduction by blocks of rows, the tall update of the recursive LU by blocks of
// rows; the LU and Cholesky factorisations of larger matrices (luLookAhead,
// cholLookAhead) overlap the factorisation of each panel with the trailing update
// by the panel before. Each part runs its products on its own goroutine (workers = 1), so that
// a product is not split a second time inside a part, where the handoffs of the
// GEMM's parallel driver would cost more than the small products gain. The parts
// go to the goroutines as they become free (vmath.Each), so that one on a busy
// core takes fewer.
//
// Every product goes to tensor.GemmOn, whose result does not depend on the number
// of goroutines, and the blocks are the same for any GOMAXPROCS: the factors are
// the same bit for bit on one goroutine or several.
const (
	// splitMin is the least multiply-add count of a triangular solve or a
	// Cholesky update split over goroutines (about 30 µs on one core).
	splitMin = 1 << 20
	// partMin is the least multiply-add count of a part of a split.
	partMin = 1 << 19
	// splitCols is the least width, and the multiple, of a block of
	// right-hand sides: whole cache lines of float64, and products wide
	// enough for the GEMM's 24-column tiles.
	splitCols = 32
	// gemmParallelMin is internal/gemm's parallelMin: products from this size
	// on are split by the GEMM's own driver.
	gemmParallelMin = 1 << 21
	// cholRows is the height of the row blocks of the Cholesky update.
	cholRows = 32
)

// gemmOn computes C = alpha op(A) op(B) + beta C (row-major, the operands
// disjoint) on at most workers goroutines (tensor.GemmOn: with the project's
// kernels, the same result for any workers; with tensor.UseBLAS64 on, in the
// installed BLAS).
func gemmOn(workers int, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if err := tensor.GemmOn(workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err) // the callers pass consistent sizes: a failure is a bug here
	}
}

// forEach calls f(i) for every i < n on at most workers goroutines, the caller
// among them, which take the indices in increasing order as they become free
// (vmath.Each); a panic of f comes back on the calling goroutine.
func forEach(n, workers int, f func(i int)) {
	if p := vmath.Each(n, workers, f); p != nil {
		panic(p.Value)
	}
}

// trsmPar is trsmRec on at most GOMAXPROCS goroutines: the k columns of B are cut
// into blocks of a multiple of splitCols columns, about two per goroutine, each
// solved whole by trsmRec on one goroutine, when the solve (n^2 k / 2
// multiply-adds) is at least splitMin and each block at least partMin.
func trsmPar(upper, trans, unit bool, n, k int, a []float64, lda int, b []float64, ldb int) {
	workers := runtime.GOMAXPROCS(0)
	half := max(1, n*n/2)
	cols := roundUp(max(splitCols, ceilDiv(partMin, half)), splitCols)
	parts := min(2*workers, k/cols)
	if workers < 2 || parts < 2 || half*k < splitMin {
		trsmRec(workers, upper, trans, unit, n, k, a, lda, b, ldb)
		return
	}
	width, parts := blocksOf(k, parts, splitCols)
	forEach(parts, workers, func(p int) {
		lo, hi := blockRange(p, parts, width, k)
		trsmRec(1, upper, trans, unit, n, hi-lo, a, lda, b[lo:], ldb)
	})
}

// gemmRows computes C = alpha A B + beta C (row-major, disjoint operands, neither
// transposed) for a tall product such as the update of the recursive LU
// factorisation: when it is at least splitMin multiply-adds but below the GEMM's
// own parallel threshold, its rows go in blocks of a multiple of 8 rows to the
// goroutines, each block a product on its own goroutine (only B, small beside A,
// is packed again per block); otherwise it is one product on GOMAXPROCS
// goroutines.
func gemmRows(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	workers := runtime.GOMAXPROCS(0)
	work := m * n * k
	rows := roundUp(max(8, ceilDiv(partMin, max(1, n*k))), 8)
	parts := min(2*workers, m/rows)
	if workers < 2 || parts < 2 || work < splitMin || work >= gemmParallelMin {
		gemmOn(workers, false, false, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	height, parts := blocksOf(m, parts, 8)
	forEach(parts, workers, func(p int) {
		lo, hi := blockRange(p, parts, height, m)
		gemmOn(1, false, false, hi-lo, n, k, alpha, a[lo*lda:], lda, b, ldb, beta, c[lo*ldc:], ldc)
	})
}

// blocksOf cuts n into about parts blocks of a multiple of align: it returns their
// size and count, the last block the remainder, or, when that would be narrower
// than align, the remainder and the block before it (blockRange). A product of one
// row or one column would go to tensor's matrix-vector loops, which sum in another
// order than the packed kernels of the unsplit product: every block stays a
// matrix.
func blocksOf(n, parts, align int) (size, count int) {
	size = roundUp(ceilDiv(n, parts), align)
	count = ceilDiv(n, size)
	if count > 1 && n-(count-1)*size < align {
		count--
	}
	return size, count
}

// blockRange returns the bounds of block p of count blocks of the given size
// covering [0, n).
func blockRange(p, count, size, n int) (lo, hi int) {
	lo, hi = p*size, (p+1)*size
	if p == count-1 {
		hi = n
	}
	return lo, hi
}

// lowerBlocks runs the update of the lower block triangle of an n×n matrix by a
// product with inner dimension k (C -= P Q^T restricted to it: the symmetric rank-k
// updates of the Cholesky factorisation and of the tridiagonal reduction) as
// update(workers, r, h) for the row blocks [r, r+h) of the given height, each
// updating the columns [0, r+h) by products on at most workers goroutines. When
// the update (about n^2 k / 2 multiply-adds) is at least splitMin, the blocks go
// to GOMAXPROCS goroutines, each computing its products on its own (workers = 1),
// the largest (last) blocks first, so that the goroutines end together;
// otherwise they run in turn on the caller, each product split by the GEMM's own
// driver if large enough.
func lowerBlocks(n, k, rows int, update func(workers, r, h int)) {
	blocks := ceilDiv(n, rows)
	block := func(workers, b int) {
		r := b * rows
		update(workers, r, min(rows, n-r))
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || blocks < 2 || n*n/2*k < splitMin {
		for b := range blocks {
			block(workers, b)
		}
		return
	}
	forEach(blocks, workers, func(i int) { block(1, blocks-1-i) })
}

func ceilDiv(x, d int) int { return (x + d - 1) / d }

func roundUp(x, m int) int { return ceilDiv(x, m) * m }

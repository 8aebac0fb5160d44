package lapack

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/chainrules-go/chainrules/tensor"
)

// The Cholesky and LU factorisations, the triangular solves and the tridiagonal
// reduction split their level-3 work over goroutines at these sizes (trsmPar,
// lowerBlocks, gemmRows):
// on 2 and 3 goroutines they give the one-goroutine result bit for bit, and the
// solve agrees with gonum's Dtrsm.
func TestSplitMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	on := func(procs int, f func()) {
		runtime.GOMAXPROCS(procs)
		f()
	}
	for _, n := range []int{300, 517} {
		a := spd(rng, n)
		g := randSlice(rng, n*n)
		k := n + 77 // right-hand sides, not a multiple of the column blocks
		tri := randSlice(rng, n*n)
		for i := range n {
			tri[i*n+i] += 4 * math.Copysign(1, tri[i*n+i])
		}
		rhs := randSlice(rng, n*k)
		var chol, lu, x, tri3 [4][]float64
		var piv [4][]int
		for _, procs := range []int{1, 2, 3} {
			on(procs, func() {
				chol[procs] = slices.Clone(a)
				if !potrfF64(chol[procs], n) {
					t.Fatalf("n=%d, %d goroutines: Cholesky failed", n, procs)
				}
				lu[procs], piv[procs] = slices.Clone(g), make([]int, n)
				getrfF64(lu[procs], n, n, piv[procs])
				x[procs] = slices.Clone(rhs)
				TrsmF64(false, true, false, n, k, tri, n, x[procs], k)
				// The tridiagonal reduction: the reflectors, then d, e and tau.
				w := slices.Clone(a)
				d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
				sytrdLower(w, n, d, e, tau)
				tri3[procs] = slices.Concat(w, d, e, tau)
			})
		}
		for _, procs := range []int{2, 3} {
			for _, c := range []struct {
				name      string
				got, want []float64
			}{{"Cholesky", chol[procs], chol[1]}, {"LU", lu[procs], lu[1]}, {"triangular solve", x[procs], x[1]},
				{"tridiagonal reduction", tri3[procs], tri3[1]}} {
				if i := firstBitDiff(c.got, c.want); i >= 0 {
					t.Errorf("n=%d, %s on %d goroutines: element %d = %v, one goroutine gives %v", n, c.name, procs, i, c.got[i], c.want[i])
				}
			}
			if !slices.Equal(piv[procs], piv[1]) {
				t.Errorf("n=%d: LU pivots on %d goroutines differ from one goroutine's", n, procs)
			}
		}
		want := slices.Clone(rhs)
		blas64.Implementation().Dtrsm(blas.Left, blas.Lower, blas.Trans, blas.NonUnit, n, k, 1, tri, n, want, k)
		if d := maxRelDiff(x[1], want); d > 1e-10 {
			t.Errorf("n=%d: triangular solve differs from Dtrsm by %g", n, d)
		}
	}
}

// Splits whose even blocks would leave a last block of one column (a solve with
// 129 right-hand sides: blocks of 64) or one row (an LU update of 17 rows: blocks
// of 16) give it to the block before, so that every block stays a matrix product:
// a one-column or one-row product would go to tensor's matrix-vector loops and
// round differently from the unsplit product. blocksOf keeps the blocks even
// otherwise.
func TestSplitTails(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, k = 300, 129
	tri := randSlice(rng, n*n)
	for i := range n {
		tri[i*n+i] += 4 * math.Copysign(1, tri[i*n+i])
	}
	rhs := randSlice(rng, n*k)
	const m, w = 17, 256
	a, b, c := randSlice(rng, m*w), randSlice(rng, w*w), randSlice(rng, m*w)
	var x, y [3][]float64
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		x[procs] = slices.Clone(rhs)
		TrsmF64(false, true, false, n, k, tri, n, x[procs], k)
		y[procs] = slices.Clone(c)
		gemmRows(m, w, w, -1, a, w, b, w, 1, y[procs], w)
	}
	if i := firstBitDiff(x[2], x[1]); i >= 0 {
		t.Errorf("triangular solve with %d right-hand sides on 2 goroutines: element %d = %v, one goroutine gives %v", k, i, x[2][i], x[1][i])
	}
	if i := firstBitDiff(y[2], y[1]); i >= 0 {
		t.Errorf("update of %d rows on 2 goroutines: element %d = %v, one goroutine gives %v", m, i, y[2][i], y[1][i])
	}
}

// blocksOf cuts into even blocks of a multiple of align, and never leaves a last
// block narrower than align.
func TestBlocksOf(t *testing.T) {
	for _, c := range []struct{ n, parts, align, size, count int }{
		{448, 3, 8, 152, 3}, // 152, 152, 144
		{129, 4, 32, 64, 2}, // 64, 65: no block of one column
		{17, 2, 8, 16, 1},   // one block: no row of its own
		{512, 4, 32, 128, 4},
		{600, 4, 32, 160, 4}, // 160, 160, 160, 120
	} {
		size, count := blocksOf(c.n, c.parts, c.align)
		require.Equal(t, [2]int{c.size, c.count}, [2]int{size, count}, "blocksOf(%d, %d, %d)", c.n, c.parts, c.align)
		lo, hi := blockRange(count-1, count, size, c.n)
		require.Equal(t, c.n, hi)
		require.GreaterOrEqual(t, hi-lo, c.align)
	}
}

// firstBitDiff returns the first index where x and y differ in their bits, or -1.
func firstBitDiff(x, y []float64) int {
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return i
		}
	}
	return -1
}

// countingDgemm is gonum's BLAS with its Dgemm calls counted.
type countingDgemm struct {
	gonumblas.Implementation
	calls *atomic.Int64
}

func (c countingDgemm) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c2 []float64, ldc int) {
	c.calls.Add(1)
	c.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c2, ldc)
}

// With tensor.UseBLAS64 on, the products of the split factorisations go to the
// installed BLAS (gemmOn takes them through tensor.Gemm), also those computed on
// the goroutines of a split, and the factors agree with the project's kernels'.
func TestSplitUsesBLAS64(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	calls := new(atomic.Int64)
	saved := blas64.Implementation()
	blas64.Use(countingDgemm{calls: calls})
	defer blas64.Use(saved)
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 300
	a := spd(rng, n)
	own := slices.Clone(a)
	if !potrfF64(own, n) {
		t.Fatal("Cholesky failed on our kernels")
	}
	require.Zero(t, calls.Load(), "products reached the BLAS with UseBLAS64 off")
	tensor.UseBLAS64(true)
	defer tensor.UseBLAS64(false)
	viaBLAS := slices.Clone(a)
	if !potrfF64(viaBLAS, n) {
		t.Fatal("Cholesky failed through the BLAS")
	}
	require.Positive(t, calls.Load(), "no product reached the BLAS with UseBLAS64 on")
	if d := maxRelDiff(viaBLAS, own); d > 1e-12 {
		t.Errorf("Cholesky through the BLAS differs from ours by %g", d)
	}
}

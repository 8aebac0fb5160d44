package lapack

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// luLookAhead (matrices with min(m, n) >= luLookMin) pivots as Dgetrf and agrees
// with it up to rounding on square, tall and wide matrices, with a last panel
// narrower than luNB and a last column block narrower than luChunk, and gives
// the same factors bit for bit on 1, 2 and 3 goroutines.
func TestLULookAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, mn := range [][2]int{{luLookMin, luLookMin}, {389, 389}, {300, 517}, {517, 300}, {luLookMin, 3 * luLookMin}, {450, 260}} {
		m, n := mn[0], mn[1]
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			a := randSlice(rng, m*n)
			ref, pRef := slices.Clone(a), make([]int, min(m, n))
			lapack64.Getrf(blas64.General{Rows: m, Cols: n, Data: ref, Stride: n}, pRef)
			var first []float64
			var firstPiv []int
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				own, piv := slices.Clone(a), make([]int, min(m, n))
				if z := getrfF64(own, m, n, piv); z >= 0 {
					t.Fatalf("%d goroutines: zero pivot %d", procs, z)
				}
				if !slices.Equal(piv, pRef) {
					t.Fatalf("%d goroutines: pivots differ from Dgetrf's", procs)
				}
				if d := maxRelDiff(own, ref); d > 1e-10 {
					t.Errorf("%d goroutines: LU differs from Dgetrf by %g", procs, d)
				}
				if first == nil {
					first, firstPiv = own, piv
					continue
				}
				if i := firstBitDiff(own, first); i >= 0 {
					t.Errorf("%d goroutines: element %d = %v, one goroutine gives %v", procs, i, own[i], first[i])
				}
				if !slices.Equal(piv, firstPiv) {
					t.Errorf("%d goroutines: pivots differ from one goroutine's", procs)
				}
			}
		})
	}
}

// Getrs on float64 (getrsF64: both solves per block of right-hand sides) agrees
// with Dgetrs up to rounding, for A and A^T, and gives the same solution bit for
// bit on 1, 2 and 3 goroutines.
func TestGetrsBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, k = 300, 389
	lu, piv := randSlice(rng, n*n), make([]int, n)
	if z := getrfF64(lu, n, n, piv); z >= 0 {
		t.Fatalf("zero pivot %d", z)
	}
	rhs := randSlice(rng, n*k)
	for _, tr := range []TransKind{NoTrans, Trans} {
		want := slices.Clone(rhs)
		bt := blas.NoTrans
		if tr == Trans {
			bt = blas.Trans
		}
		lapack64.Getrs(bt, blas64.General{Rows: n, Cols: n, Data: lu, Stride: n}, blas64.General{Rows: n, Cols: k, Data: want, Stride: k}, piv)
		var first []float64
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			x := slices.Clone(rhs)
			Getrs(lu, n, piv, x, k, tr)
			if d := maxRelDiff(x, want); d > 1e-10 {
				t.Errorf("trans=%v, %d goroutines: differs from Dgetrs by %g", tr, procs, d)
			}
			if first == nil {
				first = x
			} else if i := firstBitDiff(x, first); i >= 0 {
				t.Errorf("trans=%v, %d goroutines: element %d = %v, one goroutine gives %v", tr, procs, i, x[i], first[i])
			}
		}
	}
}

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

// cholLookAhead (orders from cholLookMin on) agrees with Dpotrf up to rounding,
// with a last panel narrower than cholNB and a last row block shorter than
// cholChunk, gives the same factor bit for bit on 1, 2 and 3 goroutines, and
// reports failure on a matrix that is not positive-definite in a later panel
// (Potrf then names the first bad minor, as LAPACK does).
func TestCholLookAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, n := range []int{cholLookMin, 300, 389, 517} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a := spd(rng, n)
			ref := slices.Clone(a)
			if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Data: ref, Stride: n}); !ok {
				t.Fatal("Dpotrf failed")
			}
			lower := func(x []float64) []float64 {
				y := make([]float64, n*n)
				for i := range n {
					copy(y[i*n:i*n+i+1], x[i*n:i*n+i+1])
				}
				return y
			}
			bad := slices.Clone(a)
			k := n - 50 // in the last panels
			bad[k*n+k] = -1
			var first []float64
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				own := slices.Clone(a)
				if !potrfF64(own, n) {
					t.Fatalf("%d goroutines: Cholesky failed", procs)
				}
				own = lower(own)
				if d := maxRelDiff(own, lower(ref)); d > 1e-12 {
					t.Errorf("%d goroutines: Cholesky differs from Dpotrf by %g", procs, d)
				}
				if first == nil {
					first = own
				} else if i := firstBitDiff(own, first); i >= 0 {
					t.Errorf("%d goroutines: element %d = %v, one goroutine gives %v", procs, i, own[i], first[i])
				}
				if potrfF64(slices.Clone(bad), n) {
					t.Errorf("%d goroutines: no failure with A[%d,%d] = -1", procs, k, k)
				}
				if got := Potrf(slices.Clone(bad), bad, n); got != k+1 {
					t.Errorf("%d goroutines: Potrf = %d with A[%d,%d] = -1, want %d", procs, got, k, k, k+1)
				}
			}
		})
	}
}

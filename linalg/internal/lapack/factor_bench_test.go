package lapack

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkFactor times the float64 kernels of linalg's lu_factor, cholesky and
// solve rows at n = 512 alone (no tape, no checks): Getrf, Potrf, the two
// triangular solves of Getrs with 512 right-hand sides, and the eigenvalues of a
// symmetric matrix (sytrd, then Dsterf). Run with GOMAXPROCS=1 and 2 in the
// environment; cpu-ms/op is the process's CPU time per call.
func BenchmarkFactor(b *testing.B) {
	const n = 512
	rng := rand.New(rand.NewPCG(1, 2))
	g := randSlice(rng, n*n)
	s := spd(rng, n)
	rhs := randSlice(rng, n*n)
	work := make([]float64, n*n)
	x := make([]float64, n*n)
	piv := make([]int, n)
	b.Run("getrf", func(b *testing.B) {
		loopCPU(b, func() {
			copy(work, g)
			getrfF64(work, n, n, piv)
		})
	})
	b.Run("potrf", func(b *testing.B) {
		loopCPU(b, func() {
			copy(work, s)
			if !potrfF64(work, n) {
				b.Fatal("not positive-definite")
			}
		})
	})
	lu := slices.Clone(g)
	getrfF64(lu, n, n, piv)
	b.Run("getrs", func(b *testing.B) {
		loopCPU(b, func() {
			copy(x, rhs)
			Getrs(lu, n, piv, x, n, NoTrans)
		})
	})
	w := make([]float64, n)
	b.Run("eigvalsh", func(b *testing.B) {
		loopCPU(b, func() {
			copy(work, s)
			if !SymEig(work, w, n, false) {
				b.Fatal("no convergence")
			}
		})
	})
}

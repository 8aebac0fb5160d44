package lapack

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user + system CPU time (0 where unavailable).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f b.N times and reports the CPU time per call as cpu-ms/op besides
// the wall time (on a loaded machine the wall time counts the waits for a core).
func loopCPU(b *testing.B, f func()) {
	t0 := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-t0)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkReduce times the blocked reductions alone: sytrd (tridiagonal) and gebrd
// (bidiagonal) of random n×n matrices.
func BenchmarkReduce(b *testing.B) {
	for _, n := range []int{128, 512, 1024} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		a := randSlice(rng, n*n)
		for i := range n {
			for j := range i {
				a[j*n+i] = a[i*n+j]
			}
		}
		work := make([]float64, n*n)
		d, e, tau, tau2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		b.Run(fmt.Sprintf("sytrd/%d", n), func(b *testing.B) {
			loopCPU(b, func() {
				copy(work, a)
				sytrdLower(work, n, d, e[:n-1], tau[:n-1])
			})
		})
		b.Run(fmt.Sprintf("gebrd/%d", n), func(b *testing.B) {
			loopCPU(b, func() {
				copy(work, a)
				gebrdUpper(work, n, n, n, d, e[:n-1], tau, tau2)
			})
		})
		// The matrices of BenchmarkOps: A A^T + n I for the eigenvectors.
		spd := make([]float64, n*n)
		Gemm(false, true, n, n, n, 1, a, n, a, n, 0, spd, n)
		for i := range n {
			spd[i*n+i] += float64(n)
		}
		w := make([]float64, n)
		b.Run(fmt.Sprintf("eigvec/%d", n), func(b *testing.B) {
			loopCPU(b, func() {
				copy(work, spd)
				if !symEigTridiag(work, w, n, true) {
					b.Fatal("no convergence")
				}
			})
		})
		s, u, vt := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
		b.Run(fmt.Sprintf("svdvec/%d", n), func(b *testing.B) {
			loopCPU(b, func() {
				if !svdFast(a, n, n, s, u, vt) {
					b.Fatal("svdFast declined")
				}
			})
		})
		_ = slices.Clone(a)
	}
}

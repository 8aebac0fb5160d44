package lapack

import (
	"sync/atomic"

	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/gonum"
)

// useLAPACK64 routes the float64 Cholesky, LU and triangular-solve kernels through
// lapack64 and blas64 instead.
var useLAPACK64 atomic.Bool

// SetLAPACK64 sets the switch behind linalg.UseLAPACK64: with on, the float64
// kernels of the package call gonum's lapack64 and blas64 instead of their own
// blocked code.
func SetLAPACK64(on bool) { useLAPACK64.Store(on) }

// LAPACK64 reports the setting of SetLAPACK64.
func LAPACK64() bool { return useLAPACK64.Load() }

// level1 is gonum's BLAS, for its assembly level-1 routines (no global state).
var level1 gonumblas.Implementation

// lapackGonum is gonum's LAPACK in Go, for the routines the kernels call directly
// (Dgeqr2, Dlarfg, Dsteqr, Dsterf, Dbdsqr, Dlasq1): they run on the caller's
// slices whatever lapack64.Use installed.
var lapackGonum gonum.Implementation

const (
	trsmBase = 16 // size of the unblocked base case of the triangular solve
	cholBase = 32 // ... of the Cholesky factorisation
	luBase   = 8  // columns of the unblocked base case of the LU panel
)

// Package lapack holds linalg's LAPACK-style kernels on raw row-major slices:
// matrices are row-major with leading dimension equal to their number of columns
// unless a routine takes one. One routine, or one tight group of routines, per
// file, named after LAPACK's:
//
//	getrf.go  Getrf    P A = L U with partial pivoting (xGETRF)
//	getrs.go  Getrs    op(A) X = B from the LU factors (xGETRS), laswp
//	trsm.go   Trsm     op(T) X = B for a triangle T (xTRSM)
//	potrf.go  Potrf    A = L L^H (xPOTRF)
//	geqrf.go  QR       A = Q R (xGEQRF, xORGQR)
//	syev.go   SymEig   A = V diag(w) V^T, symmetric (xSYEV, with sytrd.go, stein.go, stedc.go)
//	gesvd.go  SVD      A = U diag(s) V^T (xGESVD, with gebrd.go, larfb.go)
//	zgeqrf.go QRComplex, zgesvd.go CSVD, zheev.go HermEig: the complex128 forms
//	gemm.go, gemv.go   the level-3 and level-2 products they run on
//
// float64 matrices go through the package's blocked kernels, whose flops are
// almost all matrix products through tensor.Gemm (the project's packed AVX2 /
// AVX-512 GEMM), with gonum's assembly level-1 routines in the small base cases,
// or, after SetLAPACK64(true), through gonum's lapack64 and blas64 (so that a
// native implementation installed with lapack64.Use takes over). complex128
// matrices go through unblocked generic kernels. All follow LAPACK's algorithms
// and conventions (the same pivot choices, the same signs of the reflectors), so
// results agree with LAPACK's up to rounding; suite_test.go runs one set of
// checks against these kernels and against gonum's lapack/gonum.
//
// The package knows nothing of tensors but tensor.Gemm and the element
// constraint: linalg's ops call it on the data of their operands.
package lapack

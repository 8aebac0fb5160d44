package lapack

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// QR computes the reduced QR decomposition of the m×n matrix a (clobbered):
// Q (m×k) into q and R (k×n) into r, k = min(m, n). It is LAPACK's blocked xGEQRF
// (panels by gonum's Dgeqr2, the trailing matrix updated in compact WY form on
// tensor.Gemm) and Q formed by applying the reflectors to the identity; with
// UseLAPACK64 it calls lapack64's Geqrf and Orgqr.
func QR(a []float64, m, n int, q, r []float64) {
	k := min(m, n)
	tau := make([]float64, k)
	if useLAPACK64.Load() {
		ga := blas64.General{Rows: m, Cols: n, Data: a, Stride: n}
		work := []float64{0}
		lapack64.Geqrf(ga, tau, work, -1)
		work = make([]float64, max(int(work[0]), 1))
		lapack64.Geqrf(ga, tau, work, len(work))
	} else {
		const nb = 32
		work := make([]float64, nb)
		for j0 := 0; j0 < k; j0 += nb {
			kb := min(nb, k-j0)
			lapackGonum.Dgeqr2(m-j0, kb, a[j0*n+j0:], n, tau[j0:j0+kb], work)
			if j0+kb < n {
				applyReflectors(a[j0*n+j0+kb:], n, m-j0, n-j0-kb, a[j0*n+j0:], n, kb, 0, tau[j0:j0+kb], true, true)
			}
		}
	}
	for i := range k {
		copy(r[i*n+i:i*n+n], a[i*n+i:i*n+n])
	}
	if useLAPACK64.Load() {
		for i := range m {
			copy(q[i*k:i*k+k], a[i*n:i*n+k])
		}
		gq := blas64.General{Rows: m, Cols: k, Data: q, Stride: k}
		work := []float64{0}
		lapack64.Orgqr(gq, tau, work, -1)
		work = make([]float64, max(int(work[0]), 1))
		lapack64.Orgqr(gq, tau, work, len(work))
		return
	}
	clear(q[:m*k])
	for i := range k {
		q[i*k+i] = 1
	}
	applyReflectors(q, k, m, k, a, n, k, 0, tau, true, false)
}

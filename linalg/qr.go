package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// QROp returns the multi-output op of PyTorch's linalg.qr with mode="reduced": the
// QR decomposition of each matrix of a batch A [..., m, n] (float64 or complex128),
//
//	A = Q R,   Q [..., m, k] with orthonormal columns (Q^H Q = I), R [..., k, n]
//	upper triangular with a real diagonal, k = min(m, n),
//
// by Householder reflections (float64: LAPACK's blocked xGEQRF and xORGQR on the
// package's kernels; complex128: zgeqr2 and zung2r, whose reflectors, zlarfg's,
// make R's diagonal real). As in LAPACK and PyTorch, the diagonal of R is not made
// positive: R_ii = -sign(Re alpha_i) ||a_i||, where a_i is the column reduced at
// step i and alpha_i its leading entry, so the signs are locally constant while R
// has full rank and (Q, R) is a differentiable function of A there. Write copyltu(M) = tril(M, -1) +
// tril(M, -1)^H + Re diag(M) (for complex A the real part of the diagonal: Q^H dQ
// is skew-Hermitian, and the imaginary part of its diagonal is what keeps R's
// diagonal real). The pullback (PyTorch's linalg_qr_backward) is, for m >= n,
//
//	Abar = (Qbar + Q copyltu(M)) R^-H,   M = R Rbar^H - Qbar^H Q,
//
// and for m < n, with A = [X | Y] and R = [U | V] split after column m,
//
//	Xbar = (Qbar' + Q copyltu(M)) U^-H,  M = U Ubar^H - Qbar'^H Q,
//	Ybar = Q Vbar,                       Qbar' = Qbar + Y Vbar^H,
//
// recorded with einsum, masks and SolveTriangularOp, so forward and second-order
// rules follow. A rank-deficient A (a zero on R's diagonal) gives infinite
// derivatives, as in PyTorch.
func QROp() cr.Op[*tensor.Dense] {
	return decomposition("qr", 2,
		func(a *tensor.Dense) ([]*tensor.Dense, error) { return pair(qrValues(a)) },
		func(t *tape, a cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			q, r, qbar, rbar := y[0], y[1], ybar[0], ybar[1]
			sh := shape(t, a)
			if sh == nil {
				return 0
			}
			m, n := sh[len(sh)-2], sh[len(sh)-1]
			if m >= n {
				return qrPullbackTall(t, q, r, qbar, rbar)
			}
			u := narrow(t, r, -1, 0, m)
			ubar, vbar := narrow(t, rbar, -1, 0, m), narrow(t, rbar, -1, m, n-m)
			yy := narrow(t, a, -1, m, n-m)
			qbar2 := add(t, qbar, mm(t, yy, mH(t, vbar)))
			xbar := qrPullbackTall(t, q, u, qbar2, ubar)
			return concat(t, -1, xbar, mm(t, q, vbar))
		})
}

// qrPullbackTall records (Qbar + Q copyltu(M)) R^-H, M = R Rbar^H - Qbar^H Q, for a
// square R, with copyltu(M) = tril(M, -1) + tril(M, -1)^H + Re diag(M) (the real
// part of the diagonal: R's diagonal is real, and the imaginary part of Q^H dQ's
// diagonal is fixed by it).
func qrPullbackTall(t *tape, q, r, qbar, rbar cr.NodeID) cr.NodeID {
	mt := sub(t, mm(t, r, mH(t, rbar)), mm(t, mH(t, qbar), q))
	low := tril(t, mt, -1)
	d := masked(t, mt, func(i, j int) float64 { return b2f(i == j) })
	if isComplex(t, d) {
		d = t.Apply(elementwise.RealOp, d)
	}
	cp := add(t, add(t, low, mH(t, low)), d)
	g := add(t, qbar, mm(t, q, cp))
	return t.Apply(SolveTriangularOp(false, false, false), mH(t, r), g)
}

// QR is QROp without a tape.
func QR(a *tensor.Dense) (q, r *tensor.Dense, err error) { return eval2(QROp(), a) }

func qrValues(a *tensor.Dense) (q, r *tensor.Dense, err error) {
	const op = "qr"
	batch, count, m, n, err := batchShape(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	k := min(m, n)
	if a.DType() == tensor.Complex128 {
		qd, rd := qrBatch(a.Contiguous().Complex128s(), count, m, n, lapack.QRComplex)
		return newOf(qd, shapeOf(batch, m, k)...), newOf(rd, shapeOf(batch, k, n)...), nil
	}
	qd, rd := qrBatch(a.Contiguous().Float64s(), count, m, n, lapack.QR)
	return newOf(qd, shapeOf(batch, m, k)...), newOf(rd, shapeOf(batch, k, n)...), nil
}

// qrBatch runs kernel on each m×n matrix of the batch ad (on a copy, which the
// kernel overwrites) and returns the stacked Q [count, m, k] and R [count, k, n].
func qrBatch[T scalar](ad []T, count, m, n int, kernel func(a []T, m, n int, q, r []T)) (qd, rd []T) {
	k := min(m, n)
	qd, rd = make([]T, count*m*k), make([]T, count*k*n)
	if k == 0 {
		return qd, rd
	}
	work := make([]T, m*n)
	for b := range count {
		copy(work, ad[b*m*n:(b+1)*m*n])
		kernel(work, m, n, qd[b*m*k:(b+1)*m*k], rd[b*k*n:(b+1)*k*n])
	}
	return qd, rd
}

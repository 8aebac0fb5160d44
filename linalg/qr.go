package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// QROp returns the multi-output op of PyTorch's linalg.qr with mode="reduced": the
// QR decomposition of each matrix of a real batch A [..., m, n],
//
//	A = Q R,   Q [..., m, k] with orthonormal columns, R [..., k, n] upper
//	triangular, k = min(m, n),
//
// by Householder reflections (LAPACK's xGEQRF and xORGQR through lapack64). As in
// LAPACK and PyTorch, the diagonal of R is not made positive: the signs are
// LAPACK's, and they are locally constant while R has full rank, so (Q, R) is a
// differentiable function of A there. With copyltu(M) = tril(M) + tril(M, -1)^T,
// the pullback is, for m >= n,
//
//	Abar = (Qbar + Q copyltu(M)) R^-T,   M = R Rbar^T - Qbar^T Q,
//
// and for m < n, with A = [X | Y] and R = [U | V] split after column m,
//
//	Xbar = (Qbar' + Q copyltu(M)) U^-T,  M = U Ubar^T - Qbar'^T Q,
//	Ybar = Q Vbar,                       Qbar' = Qbar + Y Vbar^T,
//
// recorded with einsum, masks and SolveTriangularOp, so forward and second-order
// rules follow. A rank-deficient A (a zero on R's diagonal) gives infinite
// derivatives, as in PyTorch. float64 only.
func QROp() cr.MultiOp[*tensor.Dense] {
	return core.DefineMulti(core.MultiDef[*tensor.Dense]{Name: "qr", Space: space, Arity: 1, Outputs: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			q, r, err := qrValues(x[0])
			return []*tensor.Dense{q, r}, err
		},
		Pullback: func(t *Tape, x, y, ybar []cr.NodeID) []cr.NodeID {
			q, r, qbar, rbar := y[0], y[1], ybar[0], ybar[1]
			sh := shape(t, x[0])
			if sh == nil {
				return []cr.NodeID{0}
			}
			m, n := sh[len(sh)-2], sh[len(sh)-1]
			if m >= n {
				return []cr.NodeID{qrPullbackTall(t, q, r, qbar, rbar)}
			}
			u := narrow(t, r, -1, 0, m)
			ubar, vbar := narrow(t, rbar, -1, 0, m), narrow(t, rbar, -1, m, n-m)
			yy := narrow(t, x[0], -1, m, n-m)
			qbar2 := add(t, qbar, mm(t, yy, mH(t, vbar)))
			xbar := qrPullbackTall(t, q, u, qbar2, ubar)
			return []cr.NodeID{concat(t, -1, xbar, mm(t, q, vbar))}
		}})
}

// qrPullbackTall records (Qbar + Q copyltu(M)) R^-H, M = R Rbar^H - Qbar^H Q, for a
// square R.
func qrPullbackTall(t *Tape, q, r, qbar, rbar cr.NodeID) cr.NodeID {
	mt := sub(t, mm(t, r, mH(t, rbar)), mm(t, mH(t, qbar), q))
	low := tril(t, mt, -1)
	cp := add(t, add(t, low, mH(t, low)), masked(t, mt, func(i, j int) float64 { return b2f(i == j) }))
	g := add(t, qbar, mm(t, q, cp))
	return t.Apply(SolveTriangularOp(false, false, false), mH(t, r), g)
}

// QR is QROp without a tape.
func QR(a *tensor.Dense) (q, r *tensor.Dense, err error) {
	ys, err := evalMulti(QROp(), a)
	if err != nil {
		return nil, nil, err
	}
	return ys[0], ys[1], nil
}

func qrValues(a *tensor.Dense) (q, r *tensor.Dense, err error) {
	const op = "qr"
	batch, count, m, n, err := batchShape(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return nil, nil, errComplex(op)
	}
	k := min(m, n)
	ad := a.Contiguous().Float64s()
	qd := make([]float64, count*m*k)
	rd := make([]float64, count*k*n)
	if k > 0 {
		work := make([]float64, m*n)
		for b := range count {
			copy(work, ad[b*m*n:(b+1)*m*n])
			qrKernel(work, m, n, qd[b*m*k:(b+1)*m*k], rd[b*k*n:(b+1)*k*n])
		}
	}
	return newOf(qd, shapeOf(batch, m, k)...), newOf(rd, shapeOf(batch, k, n)...), nil
}

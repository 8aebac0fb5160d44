package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// SVDOp returns the multi-output op of PyTorch's linalg.svd with
// full_matrices=False: the thin singular value decomposition of each matrix of a
// real batch A [..., m, n],
//
//	A = U diag(S) Vh,   U [..., m, k], S [..., k] (descending), Vh [..., k, n],
//
// with k = min(m, n), computed as LAPACK's xGESVD (k <= 48, and as the fallback)
// or xGESVDX (Golub-Kahan inverse iteration) does: see the package documentation.
// Each pair of singular vectors (u_i, v_i) is defined up to a common sign, so only
// losses
// invariant under (U, Vh) -> (U D, D Vh), D = diag(±1), have a derivative that does
// not depend on LAPACK's choice: functions of S, of U Vh, of |U| and |Vh|
// elementwise, of U diag(f(S)) Vh. The pullback (PyTorch's) is
//
//	Abar = U [ (J o F) S + S (K o F) + diag(Sbar) ] Vh
//	       + (I - U U^T) Ubar S^-1 Vh   (m > k)
//	       + U S^-1 Vhbar (I - V V^T)   (n > k),
//	J = U^T Ubar - Ubar^T U,  K = V^T Vbar - Vbar^T V,  F_ij = 1/(S_j^2 - S_i^2)
//	(i != j),
//
// recorded with einsum and elementwise ops, so forward tangents and second-order
// rules follow. Repeated singular values (and, for rectangular A, zero ones) make
// the derivatives of U and Vh infinite, as in PyTorch; a loss of S alone has the
// finite pullback U diag(Sbar) Vh, taken directly. float64 only.
func SVDOp() cr.MultiOp[*tensor.Dense] {
	def := core.DefineMulti(core.MultiDef[*tensor.Dense]{Name: "svd", Space: space, Arity: 1, Outputs: 3,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			u, s, vh, err := svdValues(x[0], true)
			return []*tensor.Dense{u, s, vh}, err
		},
		Pullback: func(t *Tape, x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{svdPullback(t, y[0], y[1], y[2], ybar[0], ybar[1], ybar[2])}
		}})
	return withFastPath(def, func(x, y, ybar []*tensor.Dense, has []bool) ([]*tensor.Dense, bool, error) {
		if has[0] || has[2] {
			return nil, false, nil
		}
		g, err := einsum.Eval("...ij,...j,...jk->...ik", y[0], ybar[1], y[2])
		return []*tensor.Dense{g}, true, err
	})
}

// svdPullback records PyTorch's svd_backward.
func svdPullback(t *Tape, u, s, vh, gu, gs, gvh cr.NodeID) cr.NodeID {
	ush, vsh := shape(t, u), shape(t, vh)
	if ush == nil || vsh == nil {
		return 0
	}
	m, k, n := ush[len(ush)-2], ush[len(ush)-1], vsh[len(vsh)-1]
	v, gv := mH(t, vh), mH(t, gvh)
	skew := func(x cr.NodeID) cr.NodeID { return sub(t, x, mH(t, x)) }
	uhgu := skew(mm(t, mH(t, u), gu))
	vhgv := skew(mm(t, mH(t, v), gv))
	s2 := mul(t, s, s)
	gap := add(t, sub(t, unsq(t, s2, -2), unsq(t, s2, -1)), t.Constant(eye(tensor.Float64, k)))
	ret := div(t, add(t, mul(t, uhgu, unsq(t, s, -2)), mul(t, unsq(t, s, -1), vhgv)), gap)
	ret = masked(t, ret, func(i, j int) float64 { return b2f(i != j) })
	ret = add(t, ret, diagEmbed(t, gs))
	switch {
	case m > k:
		gus := div(t, gu, unsq(t, s, -2))
		g := sub(t, add(t, mm(t, u, ret), gus), mm3(t, u, mH(t, u), gus))
		return mm(t, g, vh)
	case n > k:
		sgvh := div(t, gvh, unsq(t, s, -1))
		g := sub(t, add(t, mm(t, ret, vh), sgvh), mm3(t, sgvh, v, vh))
		return mm(t, u, g)
	}
	return mm3(t, u, ret, vh)
}

// SVD is SVDOp without a tape.
func SVD(a *tensor.Dense) (u, s, vh *tensor.Dense, err error) {
	ys, err := evalMulti(SVDOp(), a)
	if err != nil {
		return nil, nil, nil, err
	}
	return ys[0], ys[1], ys[2], nil
}

// SvdvalsOp returns the op of PyTorch's linalg.svdvals: the singular values of each
// matrix of a real batch [..., m, n], descending (shape [..., min(m, n)]). It is a
// composite of SVDOp keeping S, so its pullback U diag(Sbar) Vh is finite at
// repeated or zero singular values. float64 only.
func SvdvalsOp() cr.Op[*tensor.Dense] {
	return core.Composite("svdvals", space, 1, func(t *Tape, x []cr.NodeID) cr.NodeID {
		return t.ApplyMulti(SVDOp(), x[0])[1]
	})
}

// Svdvals is SvdvalsOp without a tape.
func Svdvals(a *tensor.Dense) (*tensor.Dense, error) { return eval(SvdvalsOp(), a) }

// svdValues computes the thin SVDs of a batch.
func svdValues(a *tensor.Dense, vectors bool) (u, s, vh *tensor.Dense, err error) {
	const op = "svd"
	batch, count, m, n, err := batchShape(op, "A", a)
	if err != nil {
		return nil, nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return nil, nil, nil, errComplex(op)
	}
	k := min(m, n)
	ad := a.Contiguous().Float64s()
	ud := make([]float64, count*m*k)
	sd := make([]float64, count*k)
	vd := make([]float64, count*k*n)
	if k > 0 {
		work := make([]float64, m*n)
		for b := range count {
			copy(work, ad[b*m*n:(b+1)*m*n])
			if !svdKernel(work, m, n, sd[b*k:(b+1)*k], ud[b*m*k:(b+1)*m*k], vd[b*k*n:(b+1)*k*n], vectors) {
				return nil, nil, nil, opErr(op, cr.ErrInvalidArgument, "the SVD algorithm did not converge (is the input finite?)")
			}
		}
	}
	return newOf(ud, shapeOf(batch, m, k)...), newOf(sd, shapeOf(batch, k)...), newOf(vd, shapeOf(batch, k, n)...), nil
}

package linalg

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// SVDOp returns the multi-output op of PyTorch's linalg.svd with
// full_matrices=False: the thin singular value decomposition of each matrix of a
// float64 or complex128 batch A [..., m, n],
//
//	A = U diag(S) Vh,   U [..., m, k], S [..., k] (real, descending), Vh [..., k, n],
//
// with k = min(m, n), U with orthonormal columns and Vh with orthonormal rows
// (unitary for complex A: U^H U = Vh Vh^H = I). Real A is computed as LAPACK's
// xGESVD (k <= 48, and as the fallback) or xGESVDX (Golub-Kahan inverse iteration)
// does: see the package documentation; complex A by the one-sided (Hestenes)
// Jacobi method. Each pair of singular vectors (u_i, v_i) is defined up to a common
// sign (real) or phase e^{i phi} (complex), so only losses invariant under
// (U, Vh) -> (U D, D^H Vh), D diagonal unitary, have a derivative that does not
// depend on the choice: functions of S, of U Vh, of |U| and |Vh| elementwise, of
// U diag(f(S)) Vh. The pullback (PyTorch's svd_backward) is
//
//	Abar = U [ (J o F) S + S (K o F) + diag(Sbar) + i diag(Im diag(U^H Ubar)) S^-1 ] Vh
//	       + (I - U U^H) Ubar S^-1 Vh   (m > k)
//	       + U S^-1 Vhbar (I - V V^H)   (n > k),
//	J = U^H Ubar - Ubar^H U,  K = V^H Vbar - Vbar^H V,  F_ij = 1/(S_j^2 - S_i^2)
//	(i != j),
//
// where the term in Im diag(U^H Ubar) (zero for real A) is the complex case's phase
// correction. As in PyTorch, a complex cotangent that is not gauge-invariant
// (Im diag(U^H Ubar) != -Im diag(Vh Vhbar^H), checked with tolerances 1e-2) makes
// the backward pass an error wrapping chainrules.ErrInvalidArgument: the loss
// depends on the arbitrary phases. The pullback is recorded with einsum and
// elementwise ops, so forward tangents and second-order rules follow. Repeated
// singular values (and, for rectangular A, zero ones) make the derivatives of U and
// Vh infinite, as in PyTorch; a loss of S alone has the finite pullback
// U diag(Sbar) Vh, taken directly (also when recorded for core.Tape.GradGraph). An input with a NaN or infinite entry is an error
// wrapping chainrules.ErrInvalidArgument.
func SVDOp() cr.Op[*tensor.Dense] {
	def := decomposition("svd", 3,
		func(a *tensor.Dense) ([]*tensor.Dense, error) { return triple(svdValues(a, true)) },
		func(t *tape, _ cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			return svdPullback(t, y[0], y[1], y[2], ybar[0], ybar[1], ybar[2])
		})
	return withFastPath(def, func(x, y, ybar []*tensor.Dense, has []bool) ([]*tensor.Dense, bool, error) {
		if has[0] || has[2] {
			return nil, false, nil // the recorded pullback, which checks the gauge
		}
		g, err := einsum.Eval("...ij,...j,...jk->...ik", y[0], ybar[1], y[2])
		return []*tensor.Dense{g}, true, err
	}, func(t *tape, _, y, ybar []cr.NodeID) ([]cr.NodeID, bool) {
		if ybar[0].Valid() || ybar[2].Valid() || !ybar[1].Valid() {
			return nil, false
		}
		return []cr.NodeID{t.Apply(einsum.Op("...ij,...j,...jk->...ik"), y[0], ybar[1], y[2])}, true
	})
}

// svdPullback records PyTorch's svd_backward.
func svdPullback(t *tape, u, s, vh, gu, gs, gvh cr.NodeID) cr.NodeID {
	ush, vsh := shape(t, u), shape(t, vh)
	if ush == nil || vsh == nil {
		return 0
	}
	m, k, n := ush[len(ush)-2], ush[len(ush)-1], vsh[len(vsh)-1]
	// An output nobody used has an absent (invalid) cotangent: its terms are left out.
	hasU, hasVh := gu.Valid(), gvh.Valid()
	// Checked here, in the recorded pullback, so that every sweep (gradients, and
	// the forward-tangent and second-order sweeps of HVPs) refuses a loss that
	// depends on the singular vectors' phases.
	if err := svdCheckGauge([]*tensor.Dense{val(t, u), val(t, s), val(t, vh)},
		[]*tensor.Dense{val(t, gu), nil, val(t, gvh)}, []bool{hasU, false, hasVh}); err != nil {
		t.Apply(cr.FailOp[*tensor.Dense]("svd_gauge_check", err), u)
		return 0
	}
	v := mH(t, vh)
	skew := func(x cr.NodeID) cr.NodeID { return sub(t, x, mH(t, x)) }
	var ret, uhgu cr.NodeID // the k x k core; the skew part of U^H gU
	if hasU || hasVh {
		var num cr.NodeID
		if hasU {
			uhgu = skew(mm(t, mH(t, u), gu))
			num = mul(t, uhgu, unsq(t, s, -2))
		}
		if hasVh {
			term := mul(t, unsq(t, s, -1), skew(mm(t, mH(t, v), mH(t, gvh))))
			if num.Valid() {
				term = add(t, num, term)
			}
			num = term
		}
		s2 := mul(t, s, s)
		gap := add(t, sub(t, unsq(t, s2, -2), unsq(t, s2, -1)), t.Constant(eye(tensor.Float64, k)))
		ret = masked(t, div(t, num, gap), func(i, j int) float64 { return b2f(i != j) })
	}
	if gs.Valid() {
		if d := diagEmbed(t, gs); ret.Valid() {
			ret = add(t, ret, d)
		} else {
			ret = d
		}
	}
	if hasU && isComplex(t, u) {
		// The phase term i Im(diag(U^H gU)) / S: the diagonal of the skew-Hermitian
		// uhgu is 2i Im(diag(U^H gU)).
		d := masked(t, uhgu, func(i, j int) float64 { return b2f(i == j) })
		ret = add(t, ret, div(t, d, scale(t, unsq(t, s, -1), 2)))
	}
	if !ret.Valid() { // no cotangent at all
		return 0
	}
	switch {
	case m > k && hasU:
		gus := div(t, gu, unsq(t, s, -2))
		g := sub(t, add(t, mm(t, u, ret), gus), mm3(t, u, mH(t, u), gus))
		return mm(t, g, vh)
	case n > k && hasVh:
		sgvh := div(t, gvh, unsq(t, s, -1))
		g := sub(t, add(t, mm(t, ret, vh), sgvh), mm3(t, sgvh, v, vh))
		return mm(t, u, g)
	}
	return mm3(t, u, ret, vh)
}

// SVD is SVDOp without a tape.
func SVD(a *tensor.Dense) (u, s, vh *tensor.Dense, err error) { return eval3(SVDOp(), a) }

// SvdvalsOp returns the op of PyTorch's linalg.svdvals: the singular values of each
// matrix of a float64 or complex128 batch [..., m, n], real and descending (shape
// [..., min(m, n)]). It is a composite of SVDOp keeping S, so its pullback
// U diag(Sbar) Vh (complex for complex A) is finite at repeated or zero singular
// values. Applied where no input needs a cotangent (recorded without gradient, or
// on a constant) it computes the singular values alone for float64 input (complex
// input still computes the vectors). An input with a NaN or
// infinite entry is an error wrapping chainrules.ErrInvalidArgument.
func SvdvalsOp() cr.Op[*tensor.Dense] {
	body := core.Composite("svdvals", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.ApplyMulti(SVDOp(), x[0])[1]}
	})
	body = valuesOnly(body, func(x []*tensor.Dense) (*tensor.Dense, error) {
		_, s, _, err := svdValues(x[0], false)
		return s, err
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		const op = "svdvals"
		if _, _, _, _, err := batchShape(op, "A", x[0]); err != nil {
			return err
		}
		return checkFiniteSVD(op, "A", x[0])
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
	if err := checkFiniteSVD(op, "A", a); err != nil {
		return nil, nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return csvdValues(a, batch, count, m, n)
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
			if !lapack.SVD(work, m, n, sd[b*k:(b+1)*k], ud[b*m*k:(b+1)*m*k], vd[b*k*n:(b+1)*k*n], vectors) {
				return nil, nil, nil, opErr(op, cr.ErrInvalidArgument, "the SVD algorithm did not converge")
			}
		}
	}
	return newOf(ud, shapeOf(batch, m, k)...), newOf(sd, shapeOf(batch, k)...), newOf(vd, shapeOf(batch, k, n)...), nil
}

// csvdValues computes the thin SVDs of a complex batch with lapack.CSVD.
func csvdValues(a *tensor.Dense, batch []int, count, m, n int) (u, s, vh *tensor.Dense, err error) {
	k := min(m, n)
	ad := a.Contiguous().Complex128s()
	ud := make([]complex128, count*m*k)
	sd := make([]float64, count*k)
	vd := make([]complex128, count*k*n)
	for b := range count {
		if !lapack.CSVD(ad[b*m*n:(b+1)*m*n], m, n, sd[b*k:(b+1)*k], ud[b*m*k:(b+1)*m*k], vd[b*k*n:(b+1)*k*n]) {
			return nil, nil, nil, opErr("svd", cr.ErrInvalidArgument, "the SVD algorithm did not converge")
		}
	}
	return newOf(ud, shapeOf(batch, m, k)...), newOf(sd, shapeOf(batch, k)...), newOf(vd, shapeOf(batch, k, n)...), nil
}

// checkFiniteSVD returns an error wrapping chainrules.ErrInvalidArgument, naming op,
// if x has a NaN or infinite entry: the SVD of such a matrix is not defined (and
// LAPACK's iterations may return NaN, or no error, or a wrong zero).
func checkFiniteSVD(op, what string, x *tensor.Dense) error {
	if !space.IsFinite(x) {
		return opErr(op, cr.ErrInvalidArgument, "%s has a NaN or infinite entry (the singular value decomposition is not defined)", what)
	}
	return nil
}

// svdCheckGauge returns PyTorch's error for a complex svd cotangent that depends on
// the phases of the singular vectors: unless Im diag(U^H Ubar) is close to
// -Im diag(Vh Vhbar^H) (rtol = atol = 1e-2, as PyTorch's allclose), the loss is
// not a function of A.
func svdCheckGauge(y, ybar []*tensor.Dense, has []bool) error {
	if y[0].DType() != tensor.Complex128 {
		return nil
	}
	var du, dv *tensor.Dense
	var err error
	if has[0] {
		if du, err = einsum.Eval("...ij,...ij->...j", y[0].Conj(), ybar[0]); err != nil {
			return err
		}
	}
	if has[2] {
		if dv, err = einsum.Eval("...ij,...ij->...i", y[2], ybar[2].Conj()); err != nil {
			return err
		}
	}
	im := func(d *tensor.Dense) []float64 {
		out := make([]float64, y[1].Size())
		if d != nil {
			for i, z := range d.AsComplex().Complex128s() {
				out[i] = imag(z)
			}
		}
		return out
	}
	iu, iv := im(du), im(dv)
	for i := range iu {
		a, b := iu[i], -iv[i]
		if math.Abs(a-b) > 1e-2+1e-2*math.Abs(b) || math.IsNaN(a-b) {
			return opErr("svd", cr.ErrInvalidArgument, "the singular vectors of a complex matrix are defined up to a phase e^{i phi}, and the loss depends on it (it is not a function of A)")
		}
	}
	return nil
}

package linalg

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// EigOp returns the multi-output op of PyTorch's linalg.eig: the eigenvalues L
// [..., n] and right eigenvectors V [..., n, n] (both complex128) of each matrix of
// a real batch A [..., n, n],
//
//	A V = V diag(L),
//
// by LAPACK's xGEEV through lapack64 (Hessenberg reduction and the shifted QR
// algorithm): the eigenvalues in LAPACK's order (a complex-conjugate pair with
// the positive imaginary part first), each eigenvector of unit Euclidean norm with
// its largest component real, as in PyTorch. An eigenvector is defined up to a
// phase e^(i phi): only losses invariant under these phases (functions of L, of
// |V|, of V diag(f(L)) V^-1) have derivatives that do not depend on LAPACK's
// choice. Where the eigenvalues are distinct, with E_ij = conj(L_j) - conj(L_i)
// (i != j), the pullback is PyTorch's linalg_eig_backward,
//
//	G = (V^H Vbar - V^H V diag(Re diag(V^H Vbar))) / E   off the diagonal,
//	G_ii = Lbar_i,
//	Abar = Re(V^-H G V^H),
//
// recorded with einsum, elementwise ops and SolveOp, so forward and second-order
// rules follow (the real part because A is real). As in PyTorch, a cotangent that
// depends on the phases (Im (V^H Vbar)_ii larger than 1e-2 times the largest
// |(V^H Vbar)_jk| of its matrix) is an error wrapping
// chainrules.ErrInvalidArgument. Repeated eigenvalues make E
// zero and the derivatives through V infinite. Complex input needs a complex
// Hessenberg-QR eigensolver (LAPACK's zgeev), which gonum lacks: it is an error
// wrapping chainrules.ErrInvalidArgument ("float64-only"); so are a NaN or Inf
// entry and a matrix for which the QR algorithm does not converge.
func EigOp() cr.Op[*tensor.Dense] {
	return decomposition("eig", 2,
		func(a *tensor.Dense) ([]*tensor.Dense, error) { return pair(eigValues("eig", a, true)) },
		func(t *tape, _ cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			return eigPullback(t, y[0], y[1], ybar[0], ybar[1])
		})
}

// Eig is EigOp without a tape: it returns (L, V).
func Eig(a *tensor.Dense) (l, v *tensor.Dense, err error) { return eval2(EigOp(), a) }

// EigvalsOp returns the op of PyTorch's linalg.eigvals: the eigenvalues L
// [..., n] (complex128, LAPACK's order, as EigOp's) of each matrix of a real batch
// A [..., n, n]. Where they are distinct, d L_i = (V^-1 dA V)_ii, so
//
//	Abar = Re(V^-H diag(Lbar) V^H),
//
// with V from EigOp recorded in the pullback (its derivatives give the second
// order). float64 only, as EigOp.
func EigvalsOp() cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "eigvals", Space: space, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			l, _, err := eigValues("eigvals", x[0], false)
			return []*tensor.Dense{l}, err
		},
		Pullback: func(t *tape, x, _, ybar []cr.NodeID) []cr.NodeID {
			ys := t.ApplyMulti(EigOp(), x[0])
			return []cr.NodeID{eigPullback(t, ys[0], ys[1], ybar[0], 0)}
		}})
}

// Eigvals is EigvalsOp without a tape.
func Eigvals(a *tensor.Dense) (*tensor.Dense, error) { return eval(EigvalsOp(), a) }

// eigPullback records Re(V^-H G V^H) with G as in EigOp (vbar 0: no eigenvector
// cotangent, G = diag(lbar)).
func eigPullback(t *tape, l, v, lbar, vbar cr.NodeID) cr.NodeID {
	sh := shape(t, v)
	if sh == nil {
		return 0
	}
	n := sh[len(sh)-1]
	vh := mH(t, v)
	// An absent cotangent (an output nobody used) contributes no term.
	var g cr.NodeID
	if lbar.Valid() {
		g = diagEmbed(t, lbar)
	}
	if vbar.Valid() {
		vhgv := mm(t, vh, vbar)
		checkGauge(t, vhgv, "eig")
		re := t.Apply(elementwise.RealOp, t.Apply(einsum.Op("...ii->...i"), vhgv))
		vhgv = sub(t, vhgv, mm(t, vh, mul(t, v, unsq(t, re, -2))))
		lc := conj(t, l)
		e := add(t, sub(t, unsq(t, lc, -2), unsq(t, lc, -1)), t.Constant(eye(tensor.Float64, n)))
		off := masked(t, div(t, vhgv, e), func(i, j int) float64 { return b2f(i != j) })
		if g.Valid() {
			off = add(t, g, off)
		}
		g = off
	}
	abar := t.Apply(SolveOp(), vh, mm(t, g, vh))
	return t.Apply(elementwise.RealOp, abar)
}

// eigValues computes the eigenvalues (and, with vectors, the unit right
// eigenvectors) of a real batch by lapack64's Geev.
func eigValues(op string, a *tensor.Dense, vectors bool) (l, v *tensor.Dense, err error) {
	batch, count, n, err := square(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return nil, nil, errComplex(op)
	}
	if !space.IsFinite(a) {
		// Dgeev's QR iterations do not terminate on NaN.
		return nil, nil, opErr(op, cr.ErrInvalidArgument, "the input has non-finite entries (NaN or Inf)")
	}
	ad := a.Contiguous().Float64s()
	ld := make([]complex128, count*n)
	var vd []complex128
	if vectors {
		vd = make([]complex128, count*n*n)
	}
	if n > 0 {
		work := make([]float64, n*n)
		wr, wi := make([]float64, n), make([]float64, n)
		vr := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		vl := blas64.General{Stride: 1}
		jobvr := lapack.RightEVCompute
		if !vectors {
			jobvr = lapack.RightEVNone
			vr = blas64.General{Stride: 1}
		}
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: work}
		lw := []float64{0}
		lapack64.Geev(lapack.LeftEVNone, jobvr, g, wr, wi, vl, vr, lw, -1)
		lwork := make([]float64, int(lw[0]))
		for b := range count {
			copy(work, ad[b*n*n:(b+1)*n*n])
			if first := lapack64.Geev(lapack.LeftEVNone, jobvr, g, wr, wi, vl, vr, lwork, len(lwork)); first > 0 {
				return nil, nil, opErr(op, cr.ErrInvalidArgument, "the QR algorithm did not converge")
			}
			for j := range n {
				ld[b*n+j] = complex(wr[j], wi[j])
			}
			if !vectors {
				continue
			}
			vb := vd[b*n*n : (b+1)*n*n]
			for j := 0; j < n; j++ {
				if wi[j] == 0 {
					for i := range n {
						vb[i*n+j] = complex(vr.Data[i*n+j], 0)
					}
					continue
				}
				// A conjugate pair: columns j and j+1 hold the real and imaginary
				// parts of the eigenvector of wr[j] + i wi[j] (wi[j] > 0).
				for i := range n {
					re, im := vr.Data[i*n+j], vr.Data[i*n+j+1]
					vb[i*n+j] = complex(re, im)
					vb[i*n+j+1] = complex(re, -im)
				}
				j++
			}
		}
	}
	l = newOf(ld, shapeOf(batch, n)...)
	if vectors {
		v = newOf(vd, shapeOf(batch, n, n)...)
	}
	return l, v, nil
}

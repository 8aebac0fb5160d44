package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// EighOp returns the multi-output op of PyTorch's linalg.eigh: the eigenvalues w
// (ascending, shape [..., n]) and orthonormal eigenvectors V (columns, shape
// [..., n, n]) of each matrix of a batch of real symmetric matrices A,
//
//	A = V diag(w) V^T.
//
// The op reads A through its symmetric part (A + A^T)/2, which is A itself for the
// symmetric inputs PyTorch accepts (PyTorch reads one triangle). The eigenvectors
// follow LAPACK's conventions (xSYEV's QR iterations for n <= 48, xSTEIN's inverse
// iteration beyond: see the package documentation): each column is defined up to
// its sign, so
// only losses invariant under V -> V diag(±1) — functions of w, of V diag(f(w)) V^T,
// of |V| elementwise, of the projectors v_i v_i^T — have a derivative that does not
// depend on that choice. The pullback (PyTorch's) is
//
//	Abar = V (diag(wbar) + F o skew(V^T Vbar)) V^T,
//	F_ij = 1/(w_j - w_i) (i != j), F_ii = 0,  skew(X) = (X - X^T)/2,
//
// recorded with einsum and elementwise ops, so forward tangents
// (wdot = diag(V^T Adot V), Vdot = V (F o V^T Adot V)) and the second-order rule
// follow. Repeated eigenvalues make F infinite: a loss that uses V then gets
// infinite or NaN derivatives, as in PyTorch; a loss of w alone does not (its
// pullback is V diag(wbar) V^T, taken directly). float64 only (complex input is an
// error wrapping chainrules.ErrInvalidArgument).
func EighOp() cr.MultiOp[*tensor.Dense] {
	def := core.DefineMulti(core.MultiDef[*tensor.Dense]{Name: "eigh", Space: space, Arity: 1, Outputs: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			w, v, err := eighValues(x[0], true)
			return []*tensor.Dense{w, v}, err
		},
		Pullback: func(t *Tape, x, y, ybar []cr.NodeID) []cr.NodeID {
			w, v, wbar, vbar := y[0], y[1], ybar[0], ybar[1]
			n := 0
			if sh := shape(t, w); len(sh) > 0 {
				n = sh[len(sh)-1]
			}
			k := mm(t, mH(t, v), vbar)
			skew := scale(t, sub(t, k, mH(t, k)), 0.5)
			id := t.Constant(eye(tensor.Float64, n))
			gap := add(t, sub(t, unsq(t, w, -2), unsq(t, w, -1)), id)
			f := masked(t, div(t, skew, gap), func(i, j int) float64 { return b2f(i != j) })
			inner := add(t, f, diagEmbed(t, wbar))
			return []cr.NodeID{mm3(t, v, inner, mH(t, v))}
		}})
	return withFastPath(def, func(x, y, ybar []*tensor.Dense, has []bool) ([]*tensor.Dense, bool, error) {
		if has[1] {
			return nil, false, nil
		}
		// Only w was used: Abar = V diag(wbar) V^T.
		g, err := einsum.Eval("...ij,...j,...kj->...ik", y[1], ybar[0], y[1])
		return []*tensor.Dense{g}, true, err
	})
}

// Eigh is EighOp without a tape.
func Eigh(a *tensor.Dense) (w, v *tensor.Dense, err error) {
	ys, err := evalMulti(EighOp(), a)
	if err != nil {
		return nil, nil, err
	}
	return ys[0], ys[1], nil
}

// EigvalshOp returns the op of PyTorch's linalg.eigvalsh: the eigenvalues of each
// matrix of a batch of real symmetric matrices, ascending (shape [..., n]). It is a
// composite of EighOp keeping w, so its pullback Abar = V diag(wbar) V^T is finite
// at repeated eigenvalues; its second-order rule goes through the eigenvectors'
// derivative and is infinite there (the Hessian of an eigenvalue does not exist at
// a crossing). float64 only.
func EigvalshOp() cr.Op[*tensor.Dense] {
	return core.Composite("eigvalsh", space, 1, func(t *Tape, x []cr.NodeID) cr.NodeID {
		return t.ApplyMulti(EighOp(), x[0])[0]
	})
}

// Eigvalsh is EigvalshOp without a tape.
func Eigvalsh(a *tensor.Dense) (*tensor.Dense, error) { return eval(EigvalshOp(), a) }

// eighValues computes the eigen-decompositions of the symmetric parts of a batch.
func eighValues(a *tensor.Dense, vectors bool) (w, v *tensor.Dense, err error) {
	const op = "eigh"
	batch, count, n, err := square(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return nil, nil, errComplex(op)
	}
	ad := a.Contiguous().Float64s()
	wd := make([]float64, count*n)
	vd := make([]float64, count*n*n)
	for b := range count {
		s := vd[b*n*n : (b+1)*n*n]
		hermPart(s, ad[b*n*n:(b+1)*n*n], n)
		if !symEig(s, wd[b*n:(b+1)*n], n, vectors) {
			return nil, nil, opErr(op, cr.ErrInvalidArgument, "the eigenvalue algorithm did not converge (is the input finite?)")
		}
	}
	return newOf(wd, shapeOf(batch, n)...), newOf(vd, shapeOf(batch, n, n)...), nil
}

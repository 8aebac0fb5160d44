package linalg

import (
	"slices"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// sameDType returns an error unless a and b have the same dtype.
func sameDType(op string, a, b *tensor.Dense) error {
	if a.DType() != b.DType() {
		return opErr(op, cr.ErrInvalidArgument, "inputs have dtypes %v and %v; convert one of them", a.DType(), b.DType())
	}
	return nil
}

// sidedOperands checks the operands of a solve with the batch of square matrices a
// (named what) on the left (B [..., n, k]) or on the right (B [..., k, n]) of the
// batch of right-hand sides b, of a's dtype, and returns a's batch dims, n and B's
// matrix size br×bc.
func sidedOperands(op, what string, a, b *tensor.Dense, left bool) (batch []int, n, br, bc int, err error) {
	if batch, _, n, err = square(op, what, a); err != nil {
		return nil, 0, 0, 0, err
	}
	if _, _, br, bc, err = batchShape(op, "B", b); err != nil {
		return nil, 0, 0, 0, err
	}
	if err := sameDType(op, a, b); err != nil {
		return nil, 0, 0, 0, err
	}
	if (left && br != n) || (!left && bc != n) {
		return nil, 0, 0, 0, opErr(op, cr.ErrShapeMismatch, "%s is %v and B is %v (left = %v)", what, a.Shape(), b.Shape(), left)
	}
	return batch, n, br, bc, nil
}

// isVectorRHS reports whether b is a vector (or a batch of vectors) right-hand side
// for the batch of square matrices a, by PyTorch's rule for linalg.solve: b has one
// dim, or b's shape is a's without the last dim.
func isVectorRHS(a, b *tensor.Dense) bool {
	return b.Rank() == 1 || (b.Rank() == a.Rank()-1 && slices.Equal(b.Shape(), a.Shape()[:a.Rank()-1]))
}

// SolveOp returns the op X = A^-1 B (PyTorch's linalg.solve with left=True) for a
// batch of square matrices A [..., n, n] and right-hand sides B [..., n, k], or
// vectors B [..., n] (when B has one dim, or B's shape is A's without the last dim,
// PyTorch's rule). The batch dims broadcast; A and B must have the same dtype
// (float64 or complex128). The primal is an LU factorisation with partial pivoting
// (LAPACK's getrf and getrs); a singular A is an error wrapping
// chainrules.ErrInvalidArgument, as in PyTorch. The pullback
//
//	Bbar = A^-H Xbar,   Abar = -Bbar X^H
//
// (summed over broadcast batch dims) is recorded with SolveOp itself and einsum, so
// forward tangents (Xdot = A^-1 (Bdot - Adot X)) and second-order rules follow.
func SolveOp() cr.Op[*tensor.Dense] { return solveOpWith(&luCache{}, false) }

// solveOpWith is SolveOp (adjoint unset) or X = A^-H B (adjoint set), sharing the
// LU factorisation of A in c across the op, its pullback and the pullbacks of
// those: the pullback of X = op(A)^-1 B is
//
//	Bbar = op(A)^-H Xbar,   Abar = -Bbar X^H (op(A) = A),  -X Bbar^H (op(A) = A^H),
//
// recorded with solveOpWith(c, !adjoint), so the backward pass (and the
// second-order sweeps through it) solve with the factors of the forward pass
// instead of factorising A^H again. The cache only saves work: a different A (by
// identity) is factorised afresh, so the op's values and rules are those of the
// plain definition.
func solveOpWith(c *luCache, adjoint bool) cr.Op[*tensor.Dense] {
	name := "solve"
	if adjoint {
		name = "solve_adjoint"
	}
	return define(core.Def[*tensor.Dense]{Name: name, Space: space, Arity: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			return single(solveValuesWith(c, x[0], x[1], adjoint))
		},
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			a, b := val(t, x[0]), val(t, x[1])
			if a == nil || b == nil {
				return []cr.NodeID{0, 0}
			}
			bbar := t.Apply(solveOpWith(c, !adjoint), x[0], ybar)
			spec := "...ik,...jk->...ij"
			if isVectorRHS(a, b) {
				spec = "...i,...j->...ij"
			}
			var abar cr.NodeID
			if adjoint {
				abar = neg(t, t.Apply(einsum.Op(spec), y, conj(t, bbar)))
			} else {
				abar = neg(t, t.Apply(einsum.Op(spec), bbar, conj(t, y)))
			}
			return []cr.NodeID{sumTo(t, abar, a.Shape()), sumTo(t, bbar, b.Shape())}
		}})
}

// luCache keeps the LU factorisation of the last matrix a solve op factorised:
// the matrix (by identity and by contents, since a caller may update a tensor in
// place between two evaluations, as an optimiser does), the batch shape it was
// expanded to, and the factors and pivots of each expanded matrix.
type luCache struct {
	mu    sync.Mutex
	a     *tensor.Dense
	src   any // a copy of the expanded matrices factorised: []float64 or []complex128
	batch []int
	lu    any // []float64 or []complex128
	piv   []int
	bad   int // the first zero pivot of a singular matrix, or -1
}

// factors returns the LU factors and pivots of the contiguous batch ae of n×n
// matrices (a expanded to batch), from the cache or computed and cached, and the
// first zero pivot (-1 if none).
func factors[T scalar](c *luCache, a, ae *tensor.Dense, batch []int, n int) ([]T, []int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data := dataOf[T](ae)
	if c.a == a && slices.Equal(c.batch, batch) {
		if lu, ok := c.lu.([]T); ok && slices.Equal(c.src.([]T), data) {
			return lu, c.piv, c.bad
		}
	}
	lu := slices.Clone(data)
	count := 0
	if n > 0 {
		count = len(lu) / (n * n)
	}
	piv := make([]int, count*n)
	bad := -1
	for i := range count {
		if z := lapack.Getrf(lu[i*n*n:(i+1)*n*n], n, n, piv[i*n:(i+1)*n]); z >= 0 && bad < 0 {
			bad = z
		}
	}
	c.a, c.src, c.batch, c.lu, c.piv, c.bad = a, slices.Clone(data), slices.Clone(batch), lu, piv, bad
	return lu, piv, bad
}

// Solve is SolveOp without a tape.
func Solve(a, b *tensor.Dense) (*tensor.Dense, error) { return eval(SolveOp(), a, b) }

// solveValuesWith computes A^-1 B, or A^-H B if adjoint, with the factors of A
// from c.
func solveValuesWith(c *luCache, a, b *tensor.Dense, adjoint bool) (*tensor.Dense, error) {
	const op = "solve"
	_, _, n, err := square(op, "A", a)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, opErr(op, cr.ErrInvalidArgument, "B is nil")
	}
	if err := sameDType(op, a, b); err != nil {
		return nil, err
	}
	vec := isVectorRHS(a, b)
	bm := b
	if vec {
		if bm, err = b.Reshape(append(b.Shape(), 1)...); err != nil {
			return nil, err
		}
	}
	_, _, bn, k, err := batchShape(op, "B", bm)
	if err != nil {
		return nil, err
	}
	if bn != n {
		return nil, opErr(op, cr.ErrShapeMismatch, "A is %v and B is %v: B needs %d rows", a.Shape(), b.Shape(), n)
	}
	out, ae, be, err := expandBatches(op, a, bm)
	if err != nil {
		return nil, err
	}
	tr := lapack.NoTrans
	if adjoint {
		tr = lapack.ConjTrans
	}
	var x *tensor.Dense
	if a.DType() == tensor.Complex128 {
		x, err = solveT[complex128](op, c, a, ae, be, out, n, k, tr)
	} else {
		x, err = solveT[float64](op, c, a, ae, be, out, n, k, tr)
	}
	if err != nil || !vec {
		return x, err
	}
	return x.Reshape(shapeOf(out, n)...)
}

// solveT solves the batch op(A) X = B for contiguous A [..., n, n] (a expanded
// to batch) and B [..., n, k] of equal batch shape, with the factors from c.
func solveT[T scalar](op string, c *luCache, a, ae, b *tensor.Dense, batch []int, n, k int, tr lapack.TransKind) (*tensor.Dense, error) {
	x := append([]T(nil), dataOf[T](b)...)
	if len(x) == 0 {
		x = []T{}
	}
	if n > 0 {
		lu, piv, z := factors[T](c, a, ae, batch, n)
		if z >= 0 {
			return nil, opErr(op, cr.ErrInvalidArgument, "the matrix is singular (U[%d,%d] of its LU factorisation is zero)", z, z)
		}
		for i := range len(lu) / (n * n) {
			lapack.Getrs(lu[i*n*n:(i+1)*n*n], n, piv[i*n:(i+1)*n], x[i*n*k:(i+1)*n*k], k, tr)
		}
	}
	return newOf(x, b.Shape()...), nil
}

// CholeskySolveOp returns the op of PyTorch's cholesky_solve(B, L, upper): the
// solution X = (L L^H)^-1 B of A X = B from the Cholesky factor L (lower, or U with
// A = U^H U when upper is set) of A, for B [..., n, k] and L [..., n, n] with
// broadcasting batch dims. Inputs are (B, L) in PyTorch's order. It is a composite
// of two SolveTriangularOp, so only the triangle of L is read and differentiated
// (PyTorch's gradient for L also has entries in the other triangle, which its primal
// does not read).
func CholeskySolveOp(upper bool) cr.Op[*tensor.Dense] {
	body := core.Composite("cholesky_solve", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		b, l := x[0], x[1]
		if upper {
			z := t.Apply(SolveTriangularOp(false, true, false), mH(t, l), b)
			return []cr.NodeID{t.Apply(SolveTriangularOp(true, true, false), l, z)}
		}
		z := t.Apply(SolveTriangularOp(false, true, false), l, b)
		return []cr.NodeID{t.Apply(SolveTriangularOp(true, true, false), mH(t, l), z)}
	})
	return checked(body, 2, nil)
}

// CholeskySolve is CholeskySolveOp without a tape.
func CholeskySolve(b, l *tensor.Dense, upper bool) (*tensor.Dense, error) {
	return eval(CholeskySolveOp(upper), b, l)
}

// InvOp returns the op of PyTorch's linalg.inv: Y = A^-1 for a batch of square
// matrices A [..., n, n] (float64 or complex128), by LU factorisation with partial
// pivoting. A singular A is an error wrapping chainrules.ErrInvalidArgument, as in
// PyTorch. The pullback
//
//	Abar = -Y^H Ybar Y^H
//
// is one einsum of the output, so the forward tangent Ydot = -Y Adot Y and the
// second-order rule follow.
func InvOp() cr.Op[*tensor.Dense] { return invOp(true) }

// Inv is InvOp without a tape.
func Inv(a *tensor.Dense) (*tensor.Dense, error) { return eval(InvOp(), a) }

// invOp is InvOp; with check unset a singular matrix gives infinities or NaN
// instead of an error (the inverse inside the determinants' pullbacks, where
// PyTorch's LU solve does the same).
func invOp(check bool) cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "inv", Space: space, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) { return single(invValues(x[0], check)) },
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			yh := mH(t, y)
			return []cr.NodeID{neg(t, mm3(t, yh, ybar, yh))}
		}})
}

func invValues(a *tensor.Dense, check bool) (*tensor.Dense, error) {
	const op = "inv"
	batch, _, n, err := square(op, "A", a)
	if err != nil {
		return nil, err
	}
	if a.DType() == tensor.Complex128 {
		return invT[complex128](op, a.Contiguous(), batch, n, check)
	}
	return invT[float64](op, a.Contiguous(), batch, n, check)
}

func invT[T scalar](op string, a *tensor.Dense, batch []int, n int, check bool) (*tensor.Dense, error) {
	e := batchEye(dtypeOf[T](), batch, n)
	if n == 0 {
		return e, nil
	}
	ad := dataOf[T](a)
	x := dataOf[T](e)
	lu := make([]T, n*n)
	piv := make([]int, n)
	for i := range len(ad) / (n * n) {
		copy(lu, ad[i*n*n:(i+1)*n*n])
		if z := lapack.Getrf(lu, n, n, piv); z >= 0 && check {
			return nil, opErr(op, cr.ErrInvalidArgument, "the matrix is singular (U[%d,%d] of its LU factorisation is zero)", z, z)
		}
		lapack.Getrs(lu, n, piv, x[i*n*n:(i+1)*n*n], n, lapack.NoTrans)
	}
	return e, nil
}

package linalg

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// LUFactorOp returns the multi-output op of PyTorch's linalg.lu_factor: the LU
// factorisation with partial pivoting of each matrix of a batch A [..., m, n]
// (float64 or complex128, LAPACK's xGETRF),
//
//	A = P L U,   LU [..., m, n] = (L - I) + U packed,   pivots [..., min(m, n)],
//
// where L is unit lower trapezoidal, U upper trapezoidal and row j was swapped with
// row pivots[j] at step j. The pivots are LAPACK's and PyTorch's 1-based indices,
// stored as float64 (the package's tensors hold float64 or complex128); they are
// a non-differentiable output. A square matrix with a zero pivot (a singular
// matrix) is an error wrapping chainrules.ErrInvalidArgument, as in PyTorch. The
// pullback is PyTorch's lu_factor_ex_backward (L's cotangent is the strict lower
// part of LUbar, U's the upper part): for m = n
//
//	Abar = P L^-H [tril(L^H Lbar, -1) + triu(Ubar U^H)] U^-H,
//
// and the corresponding formulas for wide and tall A; it is recorded with einsum,
// masks, narrow, concat and SolveTriangularOp, so forward and second-order rules
// follow.
func LUFactorOp() cr.Op[*tensor.Dense] { return luFactorOp(true) }

// luFactorOp is LUFactorOp; with check unset a singular matrix is no error (for
// LUOp: a singular matrix has an LU factorisation, PyTorch's linalg.lu returns it).
func luFactorOp(check bool) cr.Op[*tensor.Dense] {
	const pivots = 1 // the non-differentiable output
	return decomposition("lu_factor", 2,
		func(a *tensor.Dense) ([]*tensor.Dense, error) { return pair(luFactorValues(a, check)) },
		func(t *tape, _ cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			return luPullback(t, y[0], val(t, y[pivots]), ybar[0])
		}, pivots)
}

// LUFactor is LUFactorOp without a tape: it returns the packed factors and pivots.
func LUFactor(a *tensor.Dense) (lu, pivots *tensor.Dense, err error) { return eval2(LUFactorOp(), a) }

// luFactorValues factors a batch; with check, a zero pivot of a square matrix is an
// error.
func luFactorValues(a *tensor.Dense, check bool) (lu, piv *tensor.Dense, err error) {
	const op = "lu_factor"
	batch, count, m, n, err := batchShape(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	if a.DType() == tensor.Complex128 {
		return luFactorT[complex128](op, a, batch, count, m, n, check)
	}
	return luFactorT[float64](op, a, batch, count, m, n, check)
}

func luFactorT[T scalar](op string, a *tensor.Dense, batch []int, count, m, n int, check bool) (*tensor.Dense, *tensor.Dense, error) {
	k := min(m, n)
	out := append([]T{}, dataOf[T](a.Contiguous())...)
	pd := make([]float64, count*k)
	ip := make([]int, k)
	if k > 0 {
		for b := range count {
			z := lapack.Getrf(out[b*m*n:(b+1)*m*n], m, n, ip)
			if z >= 0 && check && m == n {
				return nil, nil, opErr(op, cr.ErrInvalidArgument, "U[%d,%d] is zero: the matrix is singular", z, z)
			}
			for j, p := range ip {
				pd[b*k+j] = float64(p + 1)
			}
		}
	}
	return newOf(out, shapeOf(batch, m, n)...), newOf(pd, shapeOf(batch, k)...), nil
}

// pivotsOf converts a batch of 1-based float64 pivots [..., k] to zero-based
// indices into rows [0, m), checking them.
func pivotsOf(op string, piv *tensor.Dense, m int) ([][]int, error) {
	sh := piv.Shape()
	if len(sh) < 1 {
		return nil, opErr(op, cr.ErrShapeMismatch, "pivots must have at least 1 dim, got a scalar")
	}
	if piv.DType() != tensor.Float64 {
		return nil, opErr(op, cr.ErrInvalidArgument, "pivots must be float64, got %v", piv.DType())
	}
	k := sh[len(sh)-1]
	d := piv.Contiguous().Float64s()
	count := prodOf(sh[:len(sh)-1])
	out := make([][]int, count)
	for b := range count {
		out[b] = make([]int, k)
		for j := range k {
			v := d[b*k+j]
			if v != math.Trunc(v) || v < float64(j+1) || v > float64(m) {
				return nil, opErr(op, cr.ErrInvalidArgument, "pivot %v at position %d is not an integer in [%d, %d]", v, j, j+1, m)
			}
			out[b][j] = int(v) - 1
		}
	}
	return out, nil
}

// permMatrices returns the batch of permutation matrices P [..., m, m] with
// A = P L U for the zero-based pivots (transposed: P^T when transpose is set).
func permMatrices(piv [][]int, batch []int, m int, transpose bool) *tensor.Dense {
	p := tensor.New(tensor.Float64, shapeOf(batch, m, m)...)
	d := p.Float64s()
	perm := make([]int, m)
	for b, pv := range piv {
		for i := range perm {
			perm[i] = i
		}
		for j, q := range pv {
			perm[j], perm[q] = perm[q], perm[j]
		}
		// (P^T A)[i] = A[perm[i]]: P^T[i, perm[i]] = 1, P[perm[i], i] = 1.
		for i, r := range perm {
			if transpose {
				d[b*m*m+i*m+r] = 1
			} else {
				d[b*m*m+r*m+i] = 1
			}
		}
	}
	return p
}

// luParts records L (unit lower, [..., m, k]) and U (upper, [..., k, n]) from the
// packed factors.
func luParts(t *tape, lu cr.NodeID, m, n int) (l, u cr.NodeID) {
	k := min(m, n)
	l = tril(t, narrow(t, lu, -1, 0, k), -1)
	id := tensor.New(tensor.Float64, m, k)
	for i := range k {
		id.Set(1, i, i)
	}
	l = add(t, l, t.Constant(id))
	u = triu(t, narrow(t, lu, -2, 0, k), 0)
	return l, u
}

// luPullback records PyTorch's linalg_lu_backward for the packed factors lu with
// pivots piv (1-based, a value) and the cotangent glu of lu.
func luPullback(t *tape, lu cr.NodeID, piv *tensor.Dense, glu cr.NodeID) cr.NodeID {
	sh := shape(t, lu)
	if sh == nil || piv == nil {
		return 0
	}
	m, n := sh[len(sh)-2], sh[len(sh)-1]
	k := min(m, n)
	batch := sh[:len(sh)-2]
	l, u := luParts(t, lu, m, n)
	gl := tril(t, narrow(t, glu, -1, 0, k), -1)
	gu := triu(t, narrow(t, glu, -2, 0, k), 0)
	var ga cr.NodeID
	switch {
	case m == n:
		phi := add(t, tril(t, mm(t, mH(t, l), gl), -1), triu(t, mm(t, gu, mH(t, u)), 0))
		x := t.Apply(SolveTriangularOp(false, false, false), mH(t, u), phi)
		ga = t.Apply(SolveTriangularOp(true, true, true), mH(t, l), x)
	case m < n:
		u1 := narrow(t, u, -1, 0, k)
		gu1, gu2 := narrow(t, gu, -1, 0, k), narrow(t, gu, -1, k, n-k)
		g := sub(t, mm(t, mH(t, l), gl), mm(t, gu, mH(t, u)))
		g = t.Apply(SolveTriangularOp(false, false, false), mH(t, u1), tril(t, g, -1))
		g = concat(t, -1, add(t, g, gu1), gu2)
		ga = t.Apply(SolveTriangularOp(true, true, true), mH(t, l), g)
	default:
		l1 := narrow(t, l, -2, 0, k)
		gl1, gl2 := narrow(t, gl, -2, 0, k), narrow(t, gl, -2, k, m-k)
		g := sub(t, mm(t, gu, mH(t, u)), mm(t, mH(t, l), gl))
		g = t.Apply(SolveTriangularOp(true, true, true), mH(t, l1), triu(t, g, 0))
		g = concat(t, -2, add(t, g, gl1), gl2)
		ga = t.Apply(SolveTriangularOp(false, false, false), mH(t, u), g)
	}
	pv, err := pivotsOf("lu_factor", piv, m)
	if err != nil {
		return 0
	}
	return mm(t, t.Constant(permMatrices(pv, batch, m, false)), ga)
}

// LUOp returns the multi-output op of PyTorch's linalg.lu (pivot=True): the
// permutation matrix P [..., m, m], the unit lower trapezoidal L [..., m, k] and
// the upper trapezoidal U [..., k, n] (k = min(m, n)) with A = P L U, for float64 or
// complex128 A [..., m, n]. A composite of LUFactorOp (so its derivatives are
// lu_factor's); P is a constant (zero derivative).
func LUOp() cr.Op[*tensor.Dense] {
	body := core.Composite("lu", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(luFactorOp(false), x[0])
		sh := shape(t, x[0])
		m, n := sh[len(sh)-2], sh[len(sh)-1]
		l, u := luParts(t, ys[0], m, n)
		piv := val(t, ys[1])
		pv, err := pivotsOf("lu", piv, m)
		if err != nil {
			return []cr.NodeID{0, 0, 0}
		}
		xv := val(t, x[0])
		p := permMatrices(pv, sh[:len(sh)-2], m, false)
		if xv.DType() == tensor.Complex128 {
			p = p.AsComplex()
		}
		return []cr.NodeID{t.Constant(p), l, u}
	}, core.Outputs(3))
	return checked(body, 1, matrices("lu"))
}

// LU is LUOp without a tape: it returns P, L and U.
func LU(a *tensor.Dense) (p, l, u *tensor.Dense, err error) { return eval3(LUOp(), a) }

// LUSolveOp returns the op of PyTorch's linalg.lu_solve: with A = P L U given by the
// packed factors LU [..., n, n] and pivots [..., n] of LUFactorOp, it solves
//
//	left:  op(A) X = B  (B [..., n, k]),    right:  X op(A) = B  (B [..., k, n]),
//
// with op(A) = A^H when adjoint is set and A otherwise. Inputs are (LU, pivots, B),
// PyTorch's order; the pivots are not differentiable, the batch dims of LU and B
// broadcast. The pullback (left; right is the transposed case) is
//
//	Bbar = op(A)^-H Xbar,   Mbar = -Bbar X^H,   Abar = Mbar (or Mbar^H if adjoint),
//	LUbar = tril(P^T Abar U^H, -1) + triu(L^H P^T Abar),
//
// recorded with LUSolveOp itself, einsum and masks, so forward and second-order
// rules follow. float64 and complex128.
func LUSolveOp(left, adjoint bool) cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "lu_solve", Space: space, Arity: 3, NonDifferentiable: []int{1},
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			return single(luSolveValues(x[0], x[1], x[2], left, adjoint))
		},
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			luv, pivv, bv := val(t, x[0]), val(t, x[1]), val(t, x[2])
			if luv == nil || pivv == nil || bv == nil {
				return []cr.NodeID{0, 0, 0}
			}
			bbar := t.Apply(LUSolveOp(left, !adjoint), x[0], x[1], ybar)
			var mbar cr.NodeID
			if left {
				mbar = neg(t, mm(t, bbar, mH(t, y)))
			} else {
				mbar = neg(t, mm(t, mH(t, y), bbar))
			}
			abar := mbar
			if adjoint {
				abar = mH(t, mbar)
			}
			abar = sumTo(t, abar, luv.Shape())
			sh := luv.Shape()
			n := sh[len(sh)-1]
			pv, err := pivotsOf("lu_solve", pivv, n)
			if err != nil {
				return []cr.NodeID{0, 0, 0}
			}
			pta := mm(t, t.Constant(permMatrices(pv, sh[:len(sh)-2], n, true)), abar)
			l, u := luParts(t, x[0], n, n)
			glu := add(t, tril(t, mm(t, pta, mH(t, u)), -1), triu(t, mm(t, mH(t, l), pta), 0))
			return []cr.NodeID{glu, 0, sumTo(t, bbar, bv.Shape())}
		}})
}

// LUSolve is LUSolveOp without a tape.
func LUSolve(lu, pivots, b *tensor.Dense, left, adjoint bool) (*tensor.Dense, error) {
	return eval(LUSolveOp(left, adjoint), lu, pivots, b)
}

func luSolveValues(lu, piv, b *tensor.Dense, left, adjoint bool) (*tensor.Dense, error) {
	const op = "lu_solve"
	if piv == nil || b == nil {
		return nil, opErr(op, cr.ErrInvalidArgument, "nil input")
	}
	lb, n, br, bc, err := sidedOperands(op, "LU", lu, b, left)
	if err != nil {
		return nil, err
	}
	if ps := piv.Shape(); len(ps) != len(lb)+1 || !slices.Equal(ps[:len(lb)], lb) || ps[len(lb)] != n {
		return nil, opErr(op, cr.ErrShapeMismatch, "pivots %v do not fit LU %v", piv.Shape(), lu.Shape())
	}
	pv, err := pivotsOf(op, piv, n)
	if err != nil {
		return nil, err
	}
	out, le, be, err := expandBatches(op, lu, b)
	if err != nil {
		return nil, err
	}
	// The pivots of each output matrix: broadcast the index of LU's batch.
	count := prodOf(out)
	pidx := make([][]int, count)
	for i := range count {
		pidx[i] = pv[broadcastIndex(i, out, lb)]
	}
	if lu.DType() == tensor.Complex128 {
		return luSolveT[complex128](le, pidx, be, n, br, bc, left, adjoint), nil
	}
	return luSolveT[float64](le, pidx, be, n, br, bc, left, adjoint), nil
}

// broadcastIndex maps the flat index i of a batch of shape out to the flat index of
// the batch of shape in that broadcasts to it.
func broadcastIndex(i int, out, in []int) int {
	lead := len(out) - len(in)
	j, stride := 0, 1
	for d := len(out) - 1; d >= lead; d-- {
		c := i % out[d]
		i /= out[d]
		if in[d-lead] != 1 {
			j += c * stride
		}
		stride *= in[d-lead]
	}
	return j
}

func luSolveT[T scalar](lu *tensor.Dense, piv [][]int, b *tensor.Dense, n, br, bc int, left, adjoint bool) *tensor.Dense {
	ld := dataOf[T](lu)
	x := append([]T{}, dataOf[T](b)...)
	if n == 0 || br*bc == 0 {
		return newOf(x, b.Shape()...)
	}
	tmp := make([]T, br*bc)
	for i := range piv {
		lm := ld[i*n*n : (i+1)*n*n]
		xm := x[i*br*bc : (i+1)*br*bc]
		if left {
			tr := lapack.NoTrans
			if adjoint {
				tr = lapack.ConjTrans
			}
			lapack.Getrs(lm, n, piv[i], xm, bc, tr)
			continue
		}
		// X op(A) = B  <=>  op(A)^T X^T = B^T; A^H^T = conj(A): conj(A) Y = B^T is
		// A conj(Y) = conj(B^T).
		transposeInto(tmp, xm, br, bc)
		if adjoint {
			for j := range tmp {
				tmp[j] = cj(tmp[j])
			}
			lapack.Getrs(lm, n, piv[i], tmp, br, lapack.NoTrans)
			for j := range tmp {
				tmp[j] = cj(tmp[j])
			}
		} else {
			lapack.Getrs(lm, n, piv[i], tmp, br, lapack.Trans)
		}
		transposeInto(xm, tmp, bc, br)
	}
	return newOf(x, b.Shape()...)
}

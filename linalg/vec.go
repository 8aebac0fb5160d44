package linalg

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TraceOp returns the op tr(A) = sum_i A_ii of each matrix of a batch
// [..., n, n] (float64 or complex128), shape [...]: the einsum "...ii->...", so its
// rules are einsum's (Abar = ybar I, ydot = tr(Adot), zero second order). PyTorch's
// trace takes a single matrix; this one batches.
func TraceOp() cr.Op[*tensor.Dense] {
	body := core.Composite("trace", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(einsum.Op("...ii->..."), x[0])}
	})
	return checked(body, 1, squareMatrices("trace"))
}

// Trace is TraceOp without a tape.
func Trace(a *tensor.Dense) (*tensor.Dense, error) { return eval(TraceOp(), a) }

// broadcastAxis checks that a and b broadcast and returns the broadcast rank and
// axis normalised against it.
func broadcastAxis(op string, a, b *tensor.Dense, axis int) (shape []int, ax int, err error) {
	shape, err = tensor.BroadcastShapes(a.Shape(), b.Shape())
	if err != nil {
		return nil, 0, opErr(op, cr.ErrShapeMismatch, "shapes %v and %v do not broadcast", a.Shape(), b.Shape())
	}
	r := len(shape)
	if axis < -r || axis >= r {
		return nil, 0, opErr(op, cr.ErrInvalidArgument, "axis %d out of range for the broadcast shape %v", axis, shape)
	}
	return shape, normAxis(axis, r), nil
}

// CrossOp returns the op of PyTorch's linalg.cross: the cross product of 3-vectors
// along axis of a and b (which broadcast; axis refers to the broadcast shape and
// must have size 3 in both inputs),
//
//	c = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0),
//
// a composite of narrow, elementwise products and concat, bilinear (no
// conjugation), float64 and complex128.
func CrossOp(axis int) cr.Op[*tensor.Dense] {
	body := core.Composite("cross", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		sa, sb := shape(t, x[0]), shape(t, x[1])
		bs, _ := tensor.BroadcastShapes(sa, sb)
		r := len(bs)
		ax := normAxis(axis, r)
		comp := func(v cr.NodeID, vr, i int) cr.NodeID { return narrow(t, v, ax-(r-vr), i, 1) }
		a := [3]cr.NodeID{comp(x[0], len(sa), 0), comp(x[0], len(sa), 1), comp(x[0], len(sa), 2)}
		b := [3]cr.NodeID{comp(x[1], len(sb), 0), comp(x[1], len(sb), 1), comp(x[1], len(sb), 2)}
		c := [3]cr.NodeID{}
		for i := range 3 {
			j, k := (i+1)%3, (i+2)%3
			c[i] = sub(t, mul(t, a[j], b[k]), mul(t, a[k], b[j]))
		}
		return []cr.NodeID{concat(t, ax, c[0], c[1], c[2])}
	})
	return checked(body, 2, func(x []*tensor.Dense) error {
		const op = "cross"
		bs, ax, err := broadcastAxis(op, x[0], x[1], axis)
		if err != nil {
			return err
		}
		for k, v := range x {
			vr := v.Rank()
			va := ax - (len(bs) - vr)
			if va < 0 || v.Shape()[va] != 3 {
				return opErr(op, cr.ErrShapeMismatch, "input %d has shape %v: axis %d must have size 3", k, v.Shape(), axis)
			}
		}
		return nil
	})
}

// Cross is CrossOp without a tape.
func Cross(a, b *tensor.Dense, axis int) (*tensor.Dense, error) { return eval(CrossOp(axis), a, b) }

// VecdotOp returns the op of PyTorch's linalg.vecdot: sum_i conj(x_i) y_i along
// axis of x and y (which broadcast; axis refers to the broadcast shape). A composite
// of elementwise conj, product and sum; float64 and complex128.
func VecdotOp(axis int) cr.Op[*tensor.Dense] {
	body := core.Composite("vecdot", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		bs, _ := tensor.BroadcastShapes(shape(t, x[0]), shape(t, x[1]))
		ax := normAxis(axis, len(bs))
		return []cr.NodeID{t.Apply(reduce.SumOp([]int{ax}, false), mul(t, conj(t, x[0]), x[1]))}
	})
	return checked(body, 2, func(x []*tensor.Dense) error {
		_, _, err := broadcastAxis("vecdot", x[0], x[1], axis)
		return err
	})
}

// Vecdot is VecdotOp without a tape.
func Vecdot(x, y *tensor.Dense, axis int) (*tensor.Dense, error) { return eval(VecdotOp(axis), x, y) }

// VanderOp returns the op of PyTorch's linalg.vander: the Vandermonde matrix of the
// vectors x [..., m] with n columns of increasing powers,
//
//	V[..., i, j] = x_i^j,  j = 0, ..., n-1   (shape [..., m, n]),
//
// with n = m when n <= 0; a scalar x is the vector [x], as in PyTorch. A composite of elementwise products and stack (the
// power-0 column is a constant); float64 and complex128. Before any column is made,
// a result that no column could fill (n = m = 0) or that is larger than memory can
// hold (tensor.CheckAlloc: n = 1<<62, say) is an error wrapping
// chainrules.ErrInvalidArgument; an empty x makes no columns.
func VanderOp(n int) cr.Op[*tensor.Dense] {
	body := core.Composite("vander", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		if rank(t, x[0]) == 0 {
			x = []cr.NodeID{t.Apply(permute.ReshapeOp(1), x[0])}
		}
		xv := val(t, x[0])
		cols := n
		if cols <= 0 {
			cols = xv.Shape()[xv.Rank()-1]
		}
		if xv.Size() == 0 {
			return []cr.NodeID{t.Constant(tensor.New(xv.DType(), append(xv.Shape(), cols)...))}
		}
		pw := []cr.NodeID{t.Constant(tensor.Ones(xv.DType(), xv.Shape()...))}
		for j := 1; j < cols; j++ {
			if j == 1 {
				pw = append(pw, scale(t, x[0], 1))
				continue
			}
			pw = append(pw, mul(t, pw[j-1], x[0]))
		}
		return []cr.NodeID{t.Apply(index.StackOp(-1), pw...)}
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		sh := x[0].Shape()
		if len(sh) == 0 {
			sh = []int{1}
		}
		cols := n
		if cols <= 0 {
			cols = sh[len(sh)-1]
		}
		if cols == 0 {
			return opErr("vander", cr.ErrInvalidArgument, "the number of columns is 0")
		}
		if err := tensor.CheckAlloc(x[0].DType(), append(sh, cols)...); err != nil {
			return fmt.Errorf("vander: the result, with %d columns, is too large: %w", cols, err)
		}
		return nil
	})
}

// Vander is VanderOp without a tape.
func Vander(x *tensor.Dense, n int) (*tensor.Dense, error) { return eval(VanderOp(n), x) }

func prodOf(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}

// TensorinvOp returns the op of PyTorch's linalg.tensorinv: the inverse of A
// [i_1..i_ind, j_1..j_r] seen as the square matrix [prod i, prod j] (the products
// must be equal), with shape [j_1..j_r, i_1..i_ind], so that tensordot(A, X, ind)
// is the identity. A composite of reshape and InvOp (singular: an error wrapping
// chainrules.ErrInvalidArgument).
func TensorinvOp(ind int) cr.Op[*tensor.Dense] {
	body := core.Composite("tensorinv", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		sh := shape(t, x[0])
		rows, cols := sh[:ind], sh[ind:]
		m := t.Apply(permute.ReshapeOp(prodOf(rows), prodOf(cols)), x[0])
		return []cr.NodeID{t.Apply(permute.ReshapeOp(append(slices.Clone(cols), rows...)...), t.Apply(InvOp(), m))}
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		const op = "tensorinv"
		sh := x[0].Shape()
		if ind <= 0 || ind > len(sh) {
			return opErr(op, cr.ErrInvalidArgument, "ind %d out of range for shape %v", ind, sh)
		}
		if prodOf(sh[:ind]) != prodOf(sh[ind:]) {
			return opErr(op, cr.ErrShapeMismatch, "shape %v with ind %d is not square: %d vs %d elements", sh, ind, prodOf(sh[:ind]), prodOf(sh[ind:]))
		}
		return nil
	})
}

// Tensorinv is TensorinvOp without a tape.
func Tensorinv(a *tensor.Dense, ind int) (*tensor.Dense, error) { return eval(TensorinvOp(ind), a) }

// TensorsolveOp returns the op of PyTorch's linalg.tensorsolve: the X with
// tensordot(A, X, X.ndim) = B. The axes dims of A (none when nil) are first moved
// to the end; then A [p..., x...], with p as many dims as B has and
// prod p = prod x = prod(B's shape), is solved as the square system
// [prod p, prod x] by SolveOp, and X has shape x. A composite of moveaxis,
// reshape and SolveOp.
func TensorsolveOp(dims []int) cr.Op[*tensor.Dense] {
	dims = slices.Clone(dims)
	body := core.Composite("tensorsolve", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		a := x[0]
		r := rank(t, a)
		if len(dims) > 0 {
			dst := make([]int, len(dims))
			for k := range dims {
				dst[k] = r - len(dims) + k
			}
			a = t.Apply(permute.MoveAxisOp(dims, dst), a)
		}
		sh, bs := shape(t, a), shape(t, x[1])
		xs := sh[len(bs):]
		m := t.Apply(permute.ReshapeOp(prodOf(bs), prodOf(xs)), a)
		sol := t.Apply(SolveOp(), m, t.Apply(permute.ReshapeOp(prodOf(bs)), x[1]))
		return []cr.NodeID{t.Apply(permute.ReshapeOp(slices.Clone(xs)...), sol)}
	})
	return checked(body, 2, func(x []*tensor.Dense) error {
		const op = "tensorsolve"
		sh := x[0].Shape()
		if len(dims) > 0 {
			if _, err := normAxes(op, dims, len(sh)); err != nil {
				return err
			}
			var keep, moved []int
			for k, d := range sh {
				if slices.ContainsFunc(dims, func(a int) bool { return normAxis(a, len(sh)) == k }) {
					continue
				}
				keep = append(keep, d)
			}
			for _, a := range dims {
				moved = append(moved, sh[normAxis(a, len(sh))])
			}
			sh = append(keep, moved...)
		}
		bs := x[1].Shape()
		if len(bs) > len(sh) || prodOf(sh[:len(bs)]) != prodOf(bs) || prodOf(bs) != prodOf(sh[len(bs):]) {
			return opErr(op, cr.ErrShapeMismatch, "A (after moving dims %v: %v) does not fit B %v", dims, sh, bs)
		}
		return sameDType(op, x[0], x[1])
	})
}

// Tensorsolve is TensorsolveOp without a tape.
func Tensorsolve(a, b *tensor.Dense, dims []int) (*tensor.Dense, error) {
	return eval(TensorsolveOp(dims), a, b)
}

// HouseholderProductOp returns the op of PyTorch's linalg.householder_product
// (LAPACK's xORGQR): the first n columns of the product of k Householder
// reflections
//
//	Q = H_0 H_1 ... H_{k-1},  H_i = I - tau_i v_i v_i^H,
//
// where v_i is column i of A [..., m, n] below the diagonal with a 1 at row i, and
// tau [..., k], m >= n >= k. A composite of select, masks and einsum (rank-one
// updates applied to the first n columns of the identity), so its rules follow;
// float64 and complex128.
func HouseholderProductOp() cr.Op[*tensor.Dense] {
	body := core.Composite("householder_product", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		av := val(t, x[0])
		sh := av.Shape()
		m, n := sh[len(sh)-2], sh[len(sh)-1]
		ts := shape(t, x[1])
		k := ts[len(ts)-1]
		q0 := tensor.New(av.DType(), shapeOf(sh[:len(sh)-2], m, n)...)
		for b := range q0.Size() / max(m*n, 1) {
			idx := make([]int, len(sh))
			rem := b
			for d := len(sh) - 3; d >= 0; d-- {
				idx[d] = rem % sh[d]
				rem /= sh[d]
			}
			for i := range min(m, n) {
				idx[len(sh)-2], idx[len(sh)-1] = i, i
				q0.Set(1, idx...)
			}
		}
		q := t.Constant(q0)
		for i := k - 1; i >= 0; i-- {
			col := t.Apply(index.SelectOp(-1, i), x[0]) // [..., m]
			unit := tensor.New(tensor.Float64, m)
			below := tensor.New(tensor.Float64, m)
			unit.Float64s()[i] = 1
			for r := i + 1; r < m; r++ {
				below.Float64s()[r] = 1
			}
			v := add(t, mul(t, col, t.Constant(below)), t.Constant(unit))
			w := t.Apply(einsum.Op("...i,...ij->...j"), conj(t, v), q)
			tau := t.Apply(index.SelectOp(-1, i), x[1])
			upd := t.Apply(einsum.Op("...,...i,...j->...ij"), tau, v, w)
			q = sub(t, q, upd)
		}
		return []cr.NodeID{scale(t, q, 1)}
	})
	return checked(body, 2, func(x []*tensor.Dense) error {
		const op = "householder_product"
		ab, _, m, n, err := batchShape(op, "A", x[0])
		if err != nil {
			return err
		}
		ts := x[1].Shape()
		if len(ts) < 1 || !slices.Equal(ts[:len(ts)-1], ab) {
			return opErr(op, cr.ErrShapeMismatch, "tau %v must have A's batch dims %v", ts, ab)
		}
		if k := ts[len(ts)-1]; !(m >= n && n >= k) {
			return opErr(op, cr.ErrShapeMismatch, "A is %v and tau %v: need m >= n >= k", x[0].Shape(), ts)
		}
		return sameDType(op, x[0], x[1])
	})
}

// HouseholderProduct is HouseholderProductOp without a tape.
func HouseholderProduct(a, tau *tensor.Dense) (*tensor.Dense, error) {
	return eval(HouseholderProductOp(), a, tau)
}

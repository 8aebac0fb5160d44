package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// SolveTriangularOp returns the op of PyTorch's linalg.solve_triangular: for a batch
// of triangular matrices A [..., n, n] and B,
//
//	left:   X = T^-1 B   (B [..., n, k]),     right:  X = B T^-1   (B [..., k, n]),
//
// where T is the upper (upper = true) or lower triangle of A, with a unit diagonal
// when unitriangular is set. The other triangle (and the diagonal, when
// unitriangular) is never read, so it gets no cotangent and no tangent flows from
// it. Batch dims broadcast; A and B have the same dtype (float64 or complex128). A
// zero on the diagonal gives infinities, as in PyTorch (no error).
//
// Its rules are hand-written (it is the building block of the other ops'
// pullbacks, so its speed matters twice): with P the projection onto the triangle
// that is read and Tdot = P(Adot), for left
//
//	Xdot    = T^-1 (Bdot - Tdot X)
//	Bbar    = T^-H Xbar,                  Abar    = P(-Bbar X^H)
//	Bbardot = T^-H (Xbardot - Tdot^H Bbar), Abardot = P(-(Bbardot X^H + Bbar Xdot^H)),
//
// and for right Xdot = (Bdot - X Tdot) T^-1, Bbar = Xbar T^-H,
// Abar = P(-X^H Bbar), Bbardot = (Xbardot - Bbar Tdot^H) T^-H,
// Abardot = P(-(Xdot^H Bbar + X^H Bbardot)); cotangents of broadcast inputs are
// summed over the broadcast dims. Each costs one triangular solve per term, like
// the primal. The pullback is also recorded with ops (this op on A^H, einsum, a
// mask and sums; chainrules.PullbackRecorder), for derivatives of higher order
// through core.Tape.GradGraph.
//
// SolveTriangularOptsOp builds the same op from options (Upper, Right,
// UnitTriangular), for callers who would rather not pass three bools.
func SolveTriangularOp(upper, left, unitriangular bool) cr.Op[*tensor.Dense] {
	return triSolveOp{upper: upper, left: left, unit: unitriangular}
}

// SolveTriangular is SolveTriangularOp without a tape.
func SolveTriangular(a, b *tensor.Dense, upper, left, unitriangular bool) (*tensor.Dense, error) {
	return eval(SolveTriangularOp(upper, left, unitriangular), a, b)
}

type triSolveOp struct{ upper, left, unit bool }

func (o triSolveOp) Name() string { return "solve_triangular" }

// NumOutputs returns 1.
func (o triSolveOp) NumOutputs() int { return 1 }

func (o triSolveOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := opkit.CheckApply("solve_triangular", in, x, 2); err != nil {
		return nil, err
	}
	y, err := o.solve(x[0], x[1], lapack.NoTrans)
	if err != nil {
		return nil, err
	}
	out[0] = y
	return &triSolveRule{o: o, in: slices.Clone(in), a: x[0], bShape: x[1].Shape(), x: y}, nil
}

// solve computes X with op(T) X = B (left) or X op(T) = B (right), with the batch
// dims of A and B broadcast.
func (o triSolveOp) solve(a, b *tensor.Dense, tr lapack.TransKind) (*tensor.Dense, error) {
	const op = "solve_triangular"
	_, n, br, bc, err := sidedOperands(op, "A", a, b, o.left)
	if err != nil {
		return nil, err
	}
	_, ae, be, err := expandBatches(op, a, b)
	if err != nil {
		return nil, err
	}
	if a.DType() == tensor.Complex128 {
		return trsmBatch[complex128](ae, be, n, br, bc, o.upper, o.left, o.unit, tr), nil
	}
	return trsmBatch[float64](ae, be, n, br, bc, o.upper, o.left, o.unit, tr), nil
}

// trsmBatch solves the batch of triangular systems op(T) X = B (left) or
// X op(T) = B (right) for contiguous A and B of equal batch shape; B is br×bc.
func trsmBatch[T scalar](a, b *tensor.Dense, n, br, bc int, upper, left, unit bool, tr lapack.TransKind) *tensor.Dense {
	ad := dataOf[T](a)
	x := append([]T{}, dataOf[T](b)...)
	if n == 0 || br == 0 || bc == 0 {
		return newOf(x, b.Shape()...)
	}
	count := len(ad) / (n * n)
	var tmp []T
	if !left {
		tmp = make([]T, br*bc)
	}
	for i := range count {
		am := ad[i*n*n : (i+1)*n*n]
		xm := x[i*br*bc : (i+1)*br*bc]
		if left {
			lapack.Trsm(am, n, xm, bc, upper, tr, unit)
			continue
		}
		// X op(T) = B  <=>  op(T)^T X^T = B^T: op(T)^T is T^T, T, or conj(T), and
		// conj(T) Y = C is T conj(Y) = conj(C).
		transposeInto(tmp, xm, br, bc)
		switch tr {
		case lapack.NoTrans:
			lapack.Trsm(am, n, tmp, br, upper, lapack.Trans, unit)
		case lapack.Trans:
			lapack.Trsm(am, n, tmp, br, upper, lapack.NoTrans, unit)
		case lapack.ConjTrans:
			conjInPlace(tmp)
			lapack.Trsm(am, n, tmp, br, upper, lapack.NoTrans, unit)
			conjInPlace(tmp)
		}
		transposeInto(xm, tmp, bc, br)
	}
	return newOf(x, b.Shape()...)
}

// conjOf returns the conjugate of a complex tensor and a real tensor itself.
func conjOf(x *tensor.Dense) *tensor.Dense {
	if x.DType() == tensor.Complex128 {
		return x.Conj()
	}
	return x
}

func conjInPlace[T scalar](x []T) {
	if !isCmplx[T]() {
		return
	}
	for i, v := range x {
		x[i] = cj(v)
	}
}

// transposeInto writes the transpose of the rows×cols matrix src to dst (cols×rows),
// in 8×8 tiles so that both matrices are walked a few cache lines at a time (8
// lines of a tile of dst may fall in one cache set when rows is a power of two).
func transposeInto[T scalar](dst, src []T, rows, cols int) { lapack.Transpose(dst, src, rows, cols) }

type triSolveRule struct {
	o      triSolveOp
	in     []cr.NodeID
	a      *tensor.Dense
	bShape []int
	x      *tensor.Dense
}

func (r *triSolveRule) Inputs() []cr.NodeID { return r.in }

// project keeps the triangle of g's matrices that the op reads (a fresh tensor).
func (r *triSolveRule) project(g *tensor.Dense) *tensor.Dense {
	sh := g.Shape()
	rows, cols := sh[len(sh)-2], sh[len(sh)-1]
	m := tensor.New(tensor.Float64, rows, cols)
	md := m.Float64s()
	for i := range rows {
		for j := range cols {
			keep := j >= i
			if !r.o.upper {
				keep = j <= i
			}
			if r.o.unit && i == j {
				keep = false
			}
			md[i*cols+j] = b2f(keep)
		}
	}
	p, err := tensor.Mul(g, m)
	if err != nil {
		panic(err) // m has g's matrix shape
	}
	return p
}

// prod computes the batched product a b with op(a) = a^H when ha (likewise b).
func prod(a, b *tensor.Dense, ha, hb bool) (*tensor.Dense, error) {
	sa, sb := "...ij", "...jk"
	if ha {
		a, sa = conjOf(a), "...ji"
	}
	if hb {
		b, sb = conjOf(b), "...kj"
	}
	return einsum.Eval(sa+","+sb+"->...ik", a, b)
}

// bbar returns Bbar = op(T)^-H Xbar (left; right: Xbar op(T)^-H), not summed over
// B's broadcast dims, for the cotangent xbar.
func (r *triSolveRule) bbar(xbar *tensor.Dense) (*tensor.Dense, error) {
	return r.o.solve(r.a, xbar, lapack.ConjTrans)
}

// accAdd returns the sum acc + x, or x when acc is nil (no term yet).
func accAdd(acc, x *tensor.Dense) (*tensor.Dense, error) {
	if acc == nil {
		return x, nil
	}
	return tensor.Add(acc, x)
}

// accSub returns the difference acc - x, or -x when acc is nil (no term yet).
func accSub(acc, x *tensor.Dense) (*tensor.Dense, error) {
	if acc == nil {
		return tensor.Scale(x, -1), nil
	}
	return tensor.Sub(acc, x)
}

// cotangents returns, for the cotangent xbar, Bbar (as bbar does), Abar = P(-Bbar
// X^H) (left; right: P(-X^H Bbar)) summed to A's shape, and Bbar summed to B's
// shape.
func (r *triSolveRule) cotangents(xbar *tensor.Dense) (bbar, abar, bsum *tensor.Dense, err error) {
	if bbar, err = r.bbar(xbar); err != nil {
		return nil, nil, nil, err
	}
	if abar, err = r.abarOf([2]*tensor.Dense{bbar, r.x}); err != nil {
		return nil, nil, nil, err
	}
	if bsum, err = tensor.SumTo(bbar, r.bShape); err != nil {
		return nil, nil, nil, err
	}
	return bbar, abar, bsum, nil
}

// abarOf returns P(-Bbar X^H) (left) or P(-X^H Bbar) (right), summed to A's shape,
// for the product terms (bbar, x) given.
func (r *triSolveRule) abarOf(terms ...[2]*tensor.Dense) (*tensor.Dense, error) {
	var acc *tensor.Dense
	for _, tm := range terms {
		var p *tensor.Dense
		var err error
		if r.o.left {
			p, err = prod(tm[0], tm[1], false, true)
		} else {
			p, err = prod(tm[1], tm[0], true, false)
		}
		if err != nil {
			return nil, err
		}
		if acc, err = accAdd(acc, p); err != nil {
			return nil, err
		}
	}
	acc, err := tensor.SumTo(acc, r.a.Shape())
	if err != nil {
		return nil, err
	}
	return tensor.Scale(r.project(acc), -1), nil
}

func (r *triSolveRule) Pullback(xbars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar := xbars[0]
	_, abar, bsum, err := r.cotangents(xbar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: abar}, cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: bsum}), nil
}

// tdotTimes returns Tdot X (left) or X Tdot (right) for the tangent adot of A.
func (r *triSolveRule) tdotTimes(adot, x *tensor.Dense, conjT bool) (*tensor.Dense, error) {
	pa := r.project(adot)
	if r.o.left {
		return prod(pa, x, conjT, false)
	}
	return prod(x, pa, false, conjT)
}

// xdot returns the output tangent, false when both input tangents are absent.
func (r *triSolveRule) xdot(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	adot, hasA := tangentOf(r.in[0])
	bdot, hasB := tangentOf(r.in[1])
	if !hasA && !hasB {
		return nil, false, nil
	}
	var rhs *tensor.Dense
	if hasB {
		rhs = bdot
	}
	if hasA {
		ta, err := r.tdotTimes(adot, r.x, false)
		if err != nil {
			return nil, false, err
		}
		if rhs, err = accSub(rhs, ta); err != nil {
			return nil, false, err
		}
	}
	y, err := r.o.solve(r.a, rhs, lapack.NoTrans)
	if err != nil {
		return nil, false, err
	}
	if !slices.Equal(y.Shape(), r.x.Shape()) {
		// Bdot of a broadcast B: the solve broadcast it; expand to X's batch.
		if y, err = expand(y, r.x.Shape()); err != nil {
			return nil, false, err
		}
	}
	return y, true, nil
}

func (r *triSolveRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	y, ok, err := r.xdot(tangentOf)
	ydot[0], has[0] = y, ok
	return err
}

func (r *triSolveRule) PullbackWithTangents(args cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := args.Cotangents[0], args.TangentOf
	bbar, abar, bsum, err := r.cotangents(ct.Value)
	if err != nil {
		return dst, err
	}
	adot, hasA := tangentOf(r.in[0])
	xdot, hasX, err := r.xdot(tangentOf)
	if err != nil {
		return dst, err
	}
	// Bbardot = op^-H (Xbardot - Tdot^H Bbar)  (left; right: Xbardot - Bbar Tdot^H).
	var rhs *tensor.Dense
	if ct.HasTangent {
		rhs = ct.Tangent
	}
	if hasA {
		tb, err := r.tdotTimes(adot, bbar, true)
		if err != nil {
			return dst, err
		}
		if rhs, err = accSub(rhs, tb); err != nil {
			return dst, err
		}
	}
	a := cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: cr.Dual[*tensor.Dense]{Value: abar}}
	b := cr.DualContribution[*tensor.Dense]{Node: r.in[1], Cotangent: cr.Dual[*tensor.Dense]{Value: bsum}}
	var terms [][2]*tensor.Dense
	if rhs != nil {
		bbardot, err := r.bbar(rhs)
		if err != nil {
			return dst, err
		}
		if !slices.Equal(bbardot.Shape(), bbar.Shape()) {
			if bbardot, err = expand(bbardot, bbar.Shape()); err != nil {
				return dst, err
			}
		}
		if b.Cotangent.Tangent, err = tensor.SumTo(bbardot, r.bShape); err != nil {
			return dst, err
		}
		b.Cotangent.HasTangent = true
		terms = append(terms, [2]*tensor.Dense{bbardot, r.x})
	}
	if hasX {
		terms = append(terms, [2]*tensor.Dense{bbar, xdot})
	}
	if len(terms) > 0 {
		if a.Cotangent.Tangent, err = r.abarOf(terms...); err != nil {
			return dst, err
		}
		a.Cotangent.HasTangent = true
	}
	return append(dst, a, b), nil
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder), for
// left
//
//	Bbar = T^-H Xbar,   Abar = P(-Bbar X^H)
//
// (right: Bbar = Xbar T^-H, Abar = P(-X^H Bbar)), each summed over the broadcast
// batch dims, with the solve recorded as this op itself on A^H (whose opposite
// triangle is T^H), einsum products, the mask P and sums; so core.Tape.GradGraph
// differentiates through the op to the orders those ops reach.
func (r *triSolveRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	t, err := tapeOf(rec, "solve_triangular")
	if err != nil {
		return nil, err
	}
	g := ybar[0]
	if !g.Valid() {
		return make([]cr.NodeID, 2), nil
	}
	a, xs := x[0], y[0]
	bbar := t.Apply(triSolveOp{upper: !r.o.upper, left: r.o.left, unit: r.o.unit}, mH(t, a), g)
	var p cr.NodeID
	if r.o.left {
		p = mm(t, bbar, mH(t, xs))
	} else {
		p = mm(t, mH(t, xs), bbar)
	}
	abar := neg(t, masked(t, sumTo(t, p, r.a.Shape()), r.keep))
	return []cr.NodeID{abar, sumTo(t, bbar, r.bShape)}, t.Err()
}

// keep reports whether the op reads entry (i, j) of A's matrices: 1 or 0.
func (r *triSolveRule) keep(i, j int) float64 {
	in := j >= i
	if !r.o.upper {
		in = j <= i
	}
	return b2f(in && !(r.o.unit && i == j))
}

package reduce

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Recorded pullbacks (chainrules.PullbackRecorder) of the reductions that are not
// linear: logsumexp, var, std and prod. Sum, mean, nansum, nanmean, amax and amin
// are linear given what they record (cr.UnaryLinearRule), which records their
// pullbacks already.
//
// Package reduce may not import the elementwise package, so the recorded pullbacks
// use a small set of internal ops, closed under recording: every op of the set
// records its own pullback with ops of the set, so the reductions are
// differentiable to any order by recorded backward sweeps (core.Tape.GradGraph).
// The set is
//
//   - linear (cr.UnaryLinearRule or cr.LinearRule, every order for free):
//     reduce_broadcast (an output-shaped tensor repeated along the reduced axes;
//     adjoint: the sum over them), reduce_center (x minus its mean over each lane;
//     self-adjoint), reduce_scale (times a real constant), reduce_sub (a - b),
//     reduce_conj, reduce_complex (real to complex; adjoint: the real part) and
//     reduce_shift (x moved one place along each lane, with a fill value at the
//     lane's start; affine, its linear part is the shift with fill 0, whose
//     adjoint is the shift the other way);
//   - nonlinear, each with hand-written Pullback, Forward and PullbackWithTangents:
//     reduce_mul (a b elementwise; abar = conj(b) ybar, bbar = conj(a) ybar),
//     reduce_exp (exp x, real; xbar = y ybar), reduce_recip (1/x, real, and 0 at
//     x = 0, the convention that std's gradient takes; xbar = -y^2 ybar) and
//     reduce_scan (the linear recurrence z_k = a_k z_{k-1} + b_k along each lane,
//     forward or backward, from z_{-1} = init, which gives prefix and suffix
//     products; its cotangents are a scan the other way and a product, see
//     scanRule).

// RecordPullback records xbar = exp(x - y) ybar, with y the output and y, ybar
// broadcast back over the reduced axes.
func (r *lseRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if !ybar[0].Valid() {
		return make([]cr.NodeID, 1), nil
	}
	b := bcastOp{r.p}
	s := rec.Apply(expOp{}, rec.Apply(subOp{}, x[0], rec.Apply(b, y[0])))
	return recorded(rec, rec.Apply(mulOp{}, s, rec.Apply(b, ybar[0])))
}

// RecordPullback records xbar = d c with d = x - mean(x) (reduce_center) and c the
// broadcast of 2 ybar / D (var) or ybar recip(y) / D (std, recip(0) = 0: the
// gradient 0 where the standard deviation is 0, at every order), promoted to
// complex for a complex x.
func (r *momentRule[T]) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if !ybar[0].Valid() {
		return make([]cr.NodeID, 1), nil
	}
	var c cr.NodeID
	if r.std {
		c = rec.Apply(scaleOp(1/r.den), rec.Apply(mulOp{}, ybar[0], rec.Apply(recipOp{}, y[0])))
	} else {
		c = rec.Apply(scaleOp(2/r.den), ybar[0])
	}
	c = rec.Apply(bcastOp{r.p}, c)
	if isComplex[T]() {
		c = rec.Apply(complexOp(), c)
	}
	return recorded(rec, rec.Apply(mulOp{}, rec.Apply(centerOp(r.p), x[0]), c))
}

// RecordPullback records xbar = conj(o) ybar, broadcast, with o = P S the product
// of the other elements of the lane: P_k = prod_{m<k} x_m and S_k = prod_{m>k}
// x_m, each a scan (the running product) shifted by one place with fill 1. No
// division: zeros need no special case, at any order.
func (r *prodRule[T]) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if !ybar[0].Valid() {
		return make([]cr.NodeID, 1), nil
	}
	p := r.p
	pre := rec.Apply(shiftOp{p: p, dir: 1, fill: 1}, rec.Apply(scanOp{p: p, dir: 1, init: 1}, x[0]))
	suf := rec.Apply(shiftOp{p: p, dir: -1, fill: 1}, rec.Apply(scanOp{p: p, dir: -1, init: 1}, x[0]))
	o := rec.Apply(mulOp{}, pre, suf)
	if isComplex[T]() {
		o = rec.Apply(conjOp(), o)
	}
	return recorded(rec, rec.Apply(mulOp{}, o, rec.Apply(bcastOp{p}, ybar[0])))
}

// recorded returns the cotangents ids, or the recorder's error.
func recorded(rec cr.Recorder[*tensor.Dense], ids ...cr.NodeID) ([]cr.NodeID, error) {
	if err := rec.Err(); err != nil {
		return nil, err
	}
	return ids, nil
}

// like returns an error wrapping ErrShapeMismatch unless t is a tensor of the given
// shape (and dtype, unless dt is 0).
func like(name, what string, t *tensor.Dense, shape []int, dt tensor.DType) error {
	if t == nil || !slices.Equal(t.Shape(), shape) || (dt != 0 && t.DType() != dt) {
		want := "any dtype"
		if dt != 0 {
			want = dt.String()
		}
		return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want %s %v", name, what, opkit.DescribeOf(t), want, shape)
	}
	return nil
}

// ---- linear helper ops ----

// unaryLinear is a linear (or affine) op of one input: prim computes the output
// (nil: fwd), fwd is the linear map (of the tangents) and adj its adjoint under
// Re<a, b>; cr.UnaryLinearRule gives it every rule, its recorded pullback included.
type unaryLinear struct {
	name           string
	prim, fwd, adj func(*tensor.Dense) (*tensor.Dense, error)
}

func (o *unaryLinear) Name() string    { return o.name }
func (o *unaryLinear) NumOutputs() int { return 1 }

func (o *unaryLinear) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	if err := opkit.CheckApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	prim := o.prim
	if prim == nil {
		prim = o.fwd
	}
	v, err := prim(x[0])
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.UnaryLinearRule(in[0], o.fwd, o.adj), nil
}

// bcastOp is reduce_broadcast: an output-shaped tensor repeated along the reduced
// axes of p (a view), whose adjoint is the sum over them.
type bcastOp struct{ p *plan }

func (bcastOp) Name() string    { return "reduce_broadcast" }
func (bcastOp) NumOutputs() int { return 1 }

func (o bcastOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	if err := opkit.CheckDTypes("reduce_broadcast", x); err != nil {
		return nil, err
	}
	p := o.p
	fwd := func(t *tensor.Dense) (*tensor.Dense, error) {
		if err := like("reduce_broadcast", "input", t, p.outShape, 0); err != nil {
			return nil, err
		}
		return p.broadcastBack(t)
	}
	adj := func(g *tensor.Dense) (*tensor.Dense, error) {
		if err := like("reduce_broadcast", "cotangent", g, p.shape, 0); err != nil {
			return nil, err
		}
		if g.DType() == tensor.Complex128 {
			return output(p, scaledSum(p, elems[complex128](p.canonical(g)), 1)), nil
		}
		return output(p, scaledSum(p, elems[float64](p.canonical(g)), 1)), nil
	}
	return (&unaryLinear{name: "reduce_broadcast", fwd: fwd, adj: adj}).Apply(in, x, y)
}

// centerOp returns reduce_center, x minus its mean over each lane of p (the mean
// computed as var computes it, about the lane's first element and corrected):
// C = I - B M with B the broadcast and M the mean, a projection with real
// coefficients and so its own adjoint.
func centerOp(p *plan) cr.Op[*tensor.Dense] {
	f := func(t *tensor.Dense) (*tensor.Dense, error) {
		if err := like("reduce_center", "input", t, p.shape, 0); err != nil {
			return nil, err
		}
		if t.DType() == tensor.Complex128 {
			return center[complex128](p, t), nil
		}
		return center[float64](p, t), nil
	}
	return &unaryLinear{name: "reduce_center", fwd: f, adj: f}
}

// center returns t minus its lane means, input-shaped.
func center[T tensor.Element](p *plan, t *tensor.Dense) *tensor.Dense {
	xs := elems[T](p.canonical(t))
	mu := shiftedMean(xs, p)
	n := p.Inner
	if p.Len > 0 {
		inv := fromReal[T](1 / float64(p.Len))
		s1 := make([]T, len(mu))
		for o, off := range p.Rows() {
			for j, v := range xs[off : off+n] {
				s1[o+j] += v - mu[o+j]
			}
		}
		for o := range mu {
			mu[o] += s1[o] * inv
		}
	}
	buf := make([]T, p.Size())
	for o, off := range p.Rows() {
		for j, v := range xs[off : off+n] {
			buf[off+j] = v - mu[o+j]
		}
	}
	return restore(p, buf)
}

// scaleOp returns reduce_scale, y = c x for a real c: self-adjoint.
func scaleOp(c float64) cr.Op[*tensor.Dense] {
	f := func(t *tensor.Dense) (*tensor.Dense, error) {
		if t == nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "reduce_scale: nil tensor")
		}
		return tensor.Scale(t, c), nil
	}
	return &unaryLinear{name: "reduce_scale", fwd: f, adj: f}
}

// conjOp returns reduce_conj, y = conj(x) for a complex x: R-linear and
// self-adjoint under Re<a, b>.
func conjOp() cr.Op[*tensor.Dense] {
	f := func(t *tensor.Dense) (*tensor.Dense, error) {
		if t == nil || t.DType() != tensor.Complex128 {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "reduce_conj: %s, want complex128", opkit.DescribeOf(t))
		}
		return t.Conj(), nil
	}
	return &unaryLinear{name: "reduce_conj", fwd: f, adj: f}
}

// complexOp returns reduce_complex, y = x + 0i for a real x; its adjoint is the real
// part.
func complexOp() cr.Op[*tensor.Dense] {
	return &unaryLinear{name: "reduce_complex",
		fwd: func(t *tensor.Dense) (*tensor.Dense, error) {
			if t == nil || t.DType() != tensor.Float64 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "reduce_complex: %s, want float64", opkit.DescribeOf(t))
			}
			return t.AsComplex(), nil
		},
		adj: func(g *tensor.Dense) (*tensor.Dense, error) {
			if g == nil || g.DType() != tensor.Complex128 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "reduce_complex: cotangent %s, want complex128", opkit.DescribeOf(g))
			}
			return g.Real(), nil
		}}
}

// subOp is reduce_sub, y = a - b for a and b of the same shape and dtype.
type subOp struct{}

func (subOp) Name() string    { return "reduce_sub" }
func (subOp) NumOutputs() int { return 1 }

func (o subOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "reduce_sub"
	if err := opkit.CheckApply(name, in, x, 2); err != nil {
		return nil, err
	}
	if err := like(name, "b", x[1], x[0].Shape(), x[0].DType()); err != nil {
		return nil, err
	}
	shape, dt := x[0].Shape(), x[0].DType()
	v, err := tensor.Sub(x[0], x[1])
	if err != nil {
		return nil, err
	}
	y[0] = v
	apply := func(xd []*tensor.Dense, ok []bool) (*tensor.Dense, error) {
		for k, t := range xd {
			if ok[k] {
				if err := like(name, "tangent", t, shape, dt); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case ok[0] && ok[1]:
			return tensor.Sub(xd[0], xd[1])
		case ok[0]:
			return xd[0], nil
		}
		return tensor.Scale(xd[1], -1), nil
	}
	adjoint := func(k int, g *tensor.Dense) (*tensor.Dense, error) {
		if err := like(name, "cotangent", g, shape, dt); err != nil {
			return nil, err
		}
		if k == 0 {
			return g, nil
		}
		return tensor.Scale(g, -1), nil
	}
	return cr.LinearRule(in, nil, apply, adjoint), nil
}

// shiftOp is reduce_shift: y_k = x_{k-dir} along each lane of p (dir is 1 or -1),
// and fill where k-dir falls outside the lane. It is affine; its linear part is the
// shift with fill 0, whose adjoint is the shift by -dir with fill 0.
type shiftOp struct {
	p    *plan
	dir  int
	fill float64
}

func (shiftOp) Name() string    { return "reduce_shift" }
func (shiftOp) NumOutputs() int { return 1 }

func (o shiftOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	if err := opkit.CheckDTypes("reduce_shift", x); err != nil {
		return nil, err
	}
	p := o.p
	by := func(dir int, fill float64) func(*tensor.Dense) (*tensor.Dense, error) {
		return func(t *tensor.Dense) (*tensor.Dense, error) {
			if err := like("reduce_shift", "input", t, p.shape, 0); err != nil {
				return nil, err
			}
			if t.DType() == tensor.Complex128 {
				return restore(p, shiftLanes(p, elems[complex128](p.canonical(t)), dir, complex(fill, 0))), nil
			}
			return restore(p, shiftLanes(p, elems[float64](p.canonical(t)), dir, fill)), nil
		}
	}
	return (&unaryLinear{name: "reduce_shift", prim: by(o.dir, o.fill), fwd: by(o.dir, 0), adj: by(-o.dir, 0)}).Apply(in, x, y)
}

// shiftLanes returns xs (canonical layout of p) with out_k = xs_{k-dir} along each
// lane, fill where k-dir is outside it.
func shiftLanes[T tensor.Element](p *plan, xs []T, dir int, fill T) []T {
	out := make([]T, p.Size())
	n := p.Len
	for _, l := range p.All() {
		for k := range n {
			if s := k - dir; s >= 0 && s < n {
				out[l.At(k)] = xs[l.At(s)]
			} else {
				out[l.At(k)] = fill
			}
		}
	}
	return out
}

// ---- nonlinear helper ops ----

// mulOp is reduce_mul, y = a b elementwise for a and b of the same shape and dtype:
//
//	abar = conj(b) ybar, bbar = conj(a) ybar,  ydot = adot b + a bdot,
//	abardot = conj(b) ybardot + conj(bdot) ybar (and the same for b),
//
// recorded with reduce_mul and reduce_conj.
type mulOp struct{}

func (mulOp) Name() string    { return "reduce_mul" }
func (mulOp) NumOutputs() int { return 1 }

func (o mulOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "reduce_mul"
	if err := opkit.CheckApply(name, in, x, 2); err != nil {
		return nil, err
	}
	if err := like(name, "b", x[1], x[0].Shape(), x[0].DType()); err != nil {
		return nil, err
	}
	v, err := tensor.Mul(x[0], x[1])
	if err != nil {
		return nil, err
	}
	y[0] = v
	return &mulRule{in: [2]cr.NodeID{in[0], in[1]}, x: [2]*tensor.Dense{x[0], x[1]}}, nil
}

type mulRule struct {
	in [2]cr.NodeID
	x  [2]*tensor.Dense
}

func (r *mulRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *mulRule) check(what string, t *tensor.Dense) error {
	return like("reduce_mul", what, t, r.x[0].Shape(), r.x[0].DType())
}

// conjMul returns conj(a) g.
func conjMul(a, g *tensor.Dense) (*tensor.Dense, error) {
	if a.DType() == tensor.Complex128 {
		a = a.Conj()
	}
	return tensor.Mul(a, g)
}

func (r *mulRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := ybar[0]
	if err := r.check("cotangent", g); err != nil {
		return dst, err
	}
	for k := range 2 {
		v, err := conjMul(r.x[1-k], g)
		if err != nil {
			return dst, err
		}
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: v})
	}
	return dst, nil
}

// tangents returns the tangents of a and b (nil when absent).
func (r *mulRule) tangents(tangentOf cr.TangentOf[*tensor.Dense]) ([2]*tensor.Dense, error) {
	var td [2]*tensor.Dense
	for k := range 2 {
		if t, ok := tangentOf(r.in[k]); ok {
			if err := r.check("tangent", t); err != nil {
				return td, err
			}
			td[k] = t
		}
	}
	return td, nil
}

// addTerm returns acc + t, or t when acc is nil.
func addTerm(acc, t *tensor.Dense) (*tensor.Dense, error) {
	if acc == nil {
		return t, nil
	}
	return tensor.Add(acc, t)
}

func (r *mulRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	td, err := r.tangents(tangentOf)
	if err != nil {
		return err
	}
	var acc *tensor.Dense
	for k := range 2 {
		if td[k] == nil {
			continue
		}
		t, err := tensor.Mul(td[k], r.x[1-k])
		if err == nil {
			acc, err = addTerm(acc, t)
		}
		if err != nil {
			return err
		}
	}
	if acc != nil {
		ydot[0], has[0] = acc, true
	}
	return nil
}

func (r *mulRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	if err := r.check("cotangent", ct.Value); err != nil {
		return dst, err
	}
	if ct.HasTangent {
		if err := r.check("cotangent tangent", ct.Tangent); err != nil {
			return dst, err
		}
	}
	td, err := r.tangents(a.TangentOf)
	if err != nil {
		return dst, err
	}
	for k := range 2 {
		v, err := conjMul(r.x[1-k], ct.Value)
		if err != nil {
			return dst, err
		}
		d := cr.Dual[*tensor.Dense]{Value: v}
		var acc *tensor.Dense
		if ct.HasTangent {
			if acc, err = conjMul(r.x[1-k], ct.Tangent); err != nil {
				return dst, err
			}
		}
		if td[1-k] != nil {
			t, err := conjMul(td[1-k], ct.Value)
			if err == nil {
				acc, err = addTerm(acc, t)
			}
			if err != nil {
				return dst, err
			}
		}
		if acc != nil {
			d.Tangent, d.HasTangent = acc, true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: d})
	}
	return dst, nil
}

func (r *mulRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if !ybar[0].Valid() {
		return make([]cr.NodeID, 2), nil
	}
	out := make([]cr.NodeID, 2)
	for k := range 2 {
		f := x[1-k]
		if r.x[1-k].DType() == tensor.Complex128 {
			f = rec.Apply(conjOp(), f)
		}
		out[k] = rec.Apply(mulOp{}, f, ybar[0])
	}
	return recorded(rec, out...)
}

// expOp is reduce_exp, y = exp(x) for a real x, whose first and second derivatives
// are y: xbar = y ybar, ydot = y xdot, xbardot = y ybardot + y xdot ybar; recorded
// as reduce_mul(ybar, y).
type expOp struct{}

func (expOp) Name() string    { return "reduce_exp" }
func (expOp) NumOutputs() int { return 1 }

func (o expOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	return applyElem("reduce_exp", false, in, x, y)
}

// recipOp is reduce_recip, y = 1/x for a real x, and 0 where x is 0 (std's
// convention, kept by every derivative: the first and second derivatives, -y^2 and
// 2 y^3, vanish there):
// xbar = -y^2 ybar, ydot = -y^2 xdot, xbardot = -y^2 ybardot + 2 y^3 xdot ybar;
// recorded as reduce_scale(-1, reduce_mul(ybar, reduce_mul(y, y))).
type recipOp struct{}

func (recipOp) Name() string    { return "reduce_recip" }
func (recipOp) NumOutputs() int { return 1 }

func (o recipOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	return applyElem("reduce_recip", true, in, x, y)
}

// applyElem computes exp (recip false) or recip elementwise and returns its rule.
func applyElem(name string, recip bool, in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if err := opkit.CheckApply(name, in, x, 1); err != nil {
		return nil, err
	}
	if err := like(name, "input", x[0], x[0].Shape(), tensor.Float64); err != nil {
		return nil, err
	}
	xs := x[0].Float64s()
	ys := make([]float64, len(xs))
	for i, v := range xs {
		switch {
		case !recip:
			ys[i] = exp(v)
		case v != 0:
			ys[i] = 1 / v
		}
	}
	y[0] = wrap(ys, x[0].Shape())
	return &elemRule{name: name, in: in[0], shape: x[0].Shape(), y: ys, recip: recip}, nil
}

// elemRule is the rule of reduce_exp and reduce_recip, real elementwise functions
// y = f(x) whose derivatives are functions of y.
type elemRule struct {
	name  string
	in    cr.NodeID
	shape []int
	y     []float64
	recip bool
}

func (r *elemRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// deriv returns the first (k = 1) or second (k = 2) derivative of f at x_i.
func (r *elemRule) deriv(k, i int) float64 {
	y := r.y[i]
	switch {
	case !r.recip:
		return y
	case k == 1:
		return -y * y
	}
	return 2 * y * y * y
}

// scaled returns f^(k)(x) t elementwise, checking t's layout.
func (r *elemRule) scaled(k int, what string, t *tensor.Dense) ([]float64, error) {
	if err := like(r.name, what, t, r.shape, tensor.Float64); err != nil {
		return nil, err
	}
	ts := t.Float64s()
	out := make([]float64, len(ts))
	for i, v := range ts {
		out[i] = r.deriv(k, i) * v
	}
	return out, nil
}

func (r *elemRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	v, err := r.scaled(1, "cotangent", ybar[0])
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: wrap(v, r.shape)}), nil
}

func (r *elemRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	t, ok := tangentOf(r.in)
	if !ok {
		return nil
	}
	v, err := r.scaled(1, "tangent", t)
	if err != nil {
		return err
	}
	ydot[0], has[0] = wrap(v, r.shape), true
	return nil
}

func (r *elemRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	v, err := r.scaled(1, "cotangent", ct.Value)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: wrap(v, r.shape)}
	var acc []float64
	if ct.HasTangent {
		if acc, err = r.scaled(1, "cotangent tangent", ct.Tangent); err != nil {
			return dst, err
		}
	}
	if t, ok := a.TangentOf(r.in); ok {
		s, err := r.scaled(2, "tangent", t)
		if err != nil {
			return dst, err
		}
		g := ct.Value.Float64s()
		if acc == nil {
			acc = make([]float64, len(s))
		}
		for i := range acc {
			acc[i] += s[i] * g[i]
		}
	}
	if acc != nil {
		d.Tangent, d.HasTangent = wrap(acc, r.shape), true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

func (r *elemRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if !ybar[0].Valid() {
		return make([]cr.NodeID, 1), nil
	}
	if !r.recip {
		return recorded(rec, rec.Apply(mulOp{}, ybar[0], y[0]))
	}
	y2 := rec.Apply(mulOp{}, y[0], y[0])
	return recorded(rec, rec.Apply(scaleOp(-1), rec.Apply(mulOp{}, ybar[0], y2)))
}

// scanOp is reduce_scan: along each lane of p, in direction dir (1: k increasing,
// -1: decreasing), the linear recurrence
//
//	z_k = a_k z_{k-dir} + b_k,   z before the lane's start = init,
//
// of the inputs a and, if given, b (zero otherwise), of the same shape and dtype.
// With b absent and init 1 it is the running product of a. See scanRule.
type scanOp struct {
	p    *plan
	dir  int
	init float64
}

func (scanOp) Name() string    { return "reduce_scan" }
func (scanOp) NumOutputs() int { return 1 }

func (o scanOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "reduce_scan"
	if len(x) != 1 && len(x) != 2 || len(in) != len(x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: takes 1 or 2 inputs, got %d", name, len(x))
	}
	if err := opkit.CheckDTypes(name, x); err != nil {
		return nil, err
	}
	if x[0] == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", name)
	}
	for _, v := range x {
		if err := like(name, "input", v, o.p.shape, x[0].DType()); err != nil {
			return nil, err
		}
	}
	if x[0].DType() == tensor.Complex128 {
		return applyScan[complex128](o, in, x, y), nil
	}
	return applyScan[float64](o, in, x, y), nil
}

func applyScan[T tensor.Element](o scanOp, in []cr.NodeID, x, y []*tensor.Dense) cr.Rule[*tensor.Dense] {
	p := o.p
	r := &scanRule[T]{scanOp: o, in: slices.Clone(in), a: elems[T](p.canonical(x[0]))}
	var b []T
	if len(x) == 2 {
		b = elems[T](p.canonical(x[1]))
	}
	r.z = scanLanes(p, r.a, b, o.dir, fromReal[T](o.init))
	y[0] = restore(p, r.z)
	return r
}

// scanLanes returns z_k = a_k z_{k-dir} + b_k along each lane of p (canonical
// layout), from init; b nil is zero.
func scanLanes[T tensor.Element](p *plan, a, b []T, dir int, init T) []T {
	z := make([]T, p.Size())
	n := p.Len
	for _, l := range p.All() {
		prev := init
		for i := range n {
			k := i
			if dir < 0 {
				k = n - 1 - i
			}
			v := a[l.At(k)] * prev
			if b != nil {
				v += b[l.At(k)]
			}
			z[l.At(k)] = v
			prev = v
		}
	}
	return z
}

// scanRule differentiates z = scan(a, b). With zp the previous element
// (zp_k = z_{k-dir}, init at the lane's start), dz = scan(a, da zp + db), so
//
//	u    = scan_{-dir}(a', zbar),  a'_k = conj(a_{k+dir}) (0 past the lane's end)
//	abar = conj(zp) u,  bbar = u,  zdot = scan_dir(a, adot zp + bdot),
//
// and the tangent of u is scan_{-dir}(a', zbardot + conj(adot') u') with the primes
// shifting by one place the other way (v'_k = v_{k+dir}); abardot = conj(zpdot) u +
// conj(zp) udot with zpdot the shifted zdot. The recorded pullback is the same with
// the ops reduce_shift, reduce_conj, reduce_scan and reduce_mul.
type scanRule[T tensor.Element] struct {
	scanOp
	in []cr.NodeID
	a  []T // canonical layout
	z  []T
}

func (r *scanRule[T]) Inputs() []cr.NodeID { return r.in }

// elemsOf returns t (input-shaped, the rule's dtype) in canonical layout.
func (r *scanRule[T]) elemsOf(what string, t *tensor.Dense) ([]T, error) {
	dt := tensor.Float64
	if isComplex[T]() {
		dt = tensor.Complex128
	}
	if err := like("reduce_scan", what, t, r.p.shape, dt); err != nil {
		return nil, err
	}
	return elems[T](r.p.canonical(t)), nil
}

// conjs returns conj(v) elementwise (a fresh slice).
func conjs[T tensor.Element](v []T) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = conj(x)
	}
	return out
}

// conjMuls returns conj(a) b elementwise.
func conjMuls[T tensor.Element](a, b []T) []T {
	out := make([]T, len(a))
	for i := range out {
		out[i] = conj(a[i]) * b[i]
	}
	return out
}

// cotangents returns u and abar for the cotangent g.
func (r *scanRule[T]) cotangents(g []T) (u, abar []T) {
	p := r.p
	ap := shiftLanes(p, conjs(r.a), -r.dir, 0)
	u = scanLanes(p, ap, g, -r.dir, 0)
	zp := shiftLanes(p, r.z, r.dir, fromReal[T](r.init))
	return u, conjMuls(zp, u)
}

func (r *scanRule[T]) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g, err := r.elemsOf("cotangent", ybar[0])
	if err != nil {
		return dst, err
	}
	u, abar := r.cotangents(g)
	dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: restore(r.p, abar)})
	if len(r.in) == 2 {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: restore(r.p, u)})
	}
	return dst, nil
}

// tangent returns zdot (canonical), or nil when neither input has a tangent, and
// the tangent of a (nil when absent).
func (r *scanRule[T]) tangent(tangentOf cr.TangentOf[*tensor.Dense]) (zdot, adot []T, err error) {
	var c []T
	if t, ok := tangentOf(r.in[0]); ok {
		if adot, err = r.elemsOf("tangent", t); err != nil {
			return nil, nil, err
		}
		zp := shiftLanes(r.p, r.z, r.dir, fromReal[T](r.init))
		c = make([]T, len(zp))
		for i := range c {
			c[i] = adot[i] * zp[i]
		}
	}
	if len(r.in) == 2 {
		if t, ok := tangentOf(r.in[1]); ok {
			bdot, err := r.elemsOf("tangent", t)
			if err != nil {
				return nil, nil, err
			}
			if c == nil {
				c = slices.Clone(bdot)
			} else {
				for i := range c {
					c[i] += bdot[i]
				}
			}
		}
	}
	if c == nil {
		return nil, adot, nil
	}
	return scanLanes(r.p, r.a, c, r.dir, 0), adot, nil
}

func (r *scanRule[T]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	zdot, _, err := r.tangent(tangentOf)
	if err != nil || zdot == nil {
		return err
	}
	ydot[0], has[0] = restore(r.p, zdot), true
	return nil
}

func (r *scanRule[T]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	p := r.p
	g, err := r.elemsOf("cotangent", ct.Value)
	if err != nil {
		return dst, err
	}
	u, abar := r.cotangents(g)
	zdot, adot, err := r.tangent(a.TangentOf)
	if err != nil {
		return dst, err
	}
	da := cr.Dual[*tensor.Dense]{Value: restore(p, abar)}
	db := cr.Dual[*tensor.Dense]{Value: restore(p, u)}
	if ct.HasTangent || zdot != nil || adot != nil {
		// c = zbardot + conj(adot') u', then udot = scan_{-dir}(a', c).
		c := make([]T, p.Size())
		if ct.HasTangent {
			gd, err := r.elemsOf("cotangent tangent", ct.Tangent)
			if err != nil {
				return dst, err
			}
			copy(c, gd)
		}
		if adot != nil {
			adn := shiftLanes(p, adot, -r.dir, 0)
			un := shiftLanes(p, u, -r.dir, 0)
			for i := range c {
				c[i] += conj(adn[i]) * un[i]
			}
		}
		ap := shiftLanes(p, conjs(r.a), -r.dir, 0)
		udot := scanLanes(p, ap, c, -r.dir, 0)
		zp := shiftLanes(p, r.z, r.dir, fromReal[T](r.init))
		abd := conjMuls(zp, udot)
		if zdot != nil {
			zpd := shiftLanes(p, zdot, r.dir, 0)
			for i := range abd {
				abd[i] += conj(zpd[i]) * u[i]
			}
		}
		da.Tangent, da.HasTangent = restore(p, abd), true
		db.Tangent, db.HasTangent = restore(p, udot), true
	}
	dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: da})
	if len(r.in) == 2 {
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[1], Cotangent: db})
	}
	return dst, nil
}

func (r *scanRule[T]) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	out := make([]cr.NodeID, len(r.in))
	if !ybar[0].Valid() {
		return out, nil
	}
	p, cpx := r.p, isComplex[T]()
	ac := x[0]
	if cpx {
		ac = rec.Apply(conjOp(), ac)
	}
	u := rec.Apply(scanOp{p: p, dir: -r.dir}, rec.Apply(shiftOp{p: p, dir: -r.dir}, ac), ybar[0])
	zp := rec.Apply(shiftOp{p: p, dir: r.dir, fill: r.init}, y[0])
	if cpx {
		zp = rec.Apply(conjOp(), zp)
	}
	out[0] = rec.Apply(mulOp{}, zp, u)
	if len(r.in) == 2 {
		out[1] = u
	}
	return recorded(rec, out...)
}

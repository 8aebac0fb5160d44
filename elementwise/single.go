package elementwise

import (
	"math"
	"slices"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Single precision. The ops of this package take float32 and complex64 tensors as
// well, through opkit.ApplyWidened: an application with a single-precision
// input runs the op's double-precision definition on the inputs widened exactly
// and rounds each output once, to the dtype tensor.PromoteTypes gives the inputs;
// its rule widens the cotangents and tangents it is given, runs the
// double-precision rule, and rounds each input's cotangent (and tangent) to that
// input's dtype. A single-precision result is so the correctly rounded
// double-precision one (more accurate than a float32 kernel, whose results differ
// from PyTorch's float32 kernels by a few ulp), at the cost of the conversions.
// The recorded pullback is the double-precision rule's, recorded with the same
// registered ops on the single-precision nodes, so derivatives of every order
// stay in single precision. The linear helpers sum_to, reshape and mask_mul
// compute natively in every dtype.

// hasSingle reports whether some input is float32 or complex64.
func hasSingle(xs []*tensor.Dense) bool { return opkit.HasSingle(xs) }

// applySingle is opkit.ApplyWidened: op applied to single-precision inputs in double
// precision.
func applySingle(op cr.Op[*tensor.Dense], in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return opkit.ApplyWidened(op, in, xs, ys)
}

// Native float32 kernels. An op whose real definition has a float32 kernel
// (Func1.single: exp, tanh and sigmoid through vmath.Exp32, vmath.Tanh32 and
// vmath.Sigmoid32, within 2 ulp of the correctly rounded result; relu and sqrt,
// correctly rounded) computes its float32 output in float32 instead of widening;
// its rule computes the first-order pullback, the forward tangent and the
// second-order pullback in float32 too (Func1.singleD1: v y for exp,
// v (1 - y)(1 + y) for tanh, v y (1 - y) for sigmoid, v [y > 0] for relu,
// v 0.5/y for sqrt; Func1.singleD2 with F" = y, -2 y F', F' (1 - 2y), 0 and
// -0.25/y³), and hands the recorded pullback to the widened double-precision
// rule, which it builds when first asked for one (it evaluates the op once more
// in double precision). Cotangents or tangents of another dtype go the widened
// way too.

// applyFloat32 applies o, which has a float32 kernel, to the float32 tensor x.
func (o *unaryOp) applyFloat32(in []cr.NodeID, x *tensor.Dense, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	shape := x.Shape()
	if err := checkResult(o.name, tensor.Float32, shape); err != nil {
		return nil, err
	}
	xc := x.Contiguous()
	xv := xc.Float32s()
	yv := vmath.MakeNoZero[float32](len(xv))
	kernel := o.spec.Real.single
	if parallelWorkers(len(xv)) <= 1 {
		kernel(yv, xv)
	} else {
		parallelFor(len(xv), func(lo, hi int) { kernel(yv[lo:hi], xv[lo:hi]) })
	}
	y, err := tensor.FromFloat32(yv, shape...)
	r := &float32Rule{op: o, in: [1]cr.NodeID{in[0]}, x: xc, y: y}
	return setOutput(ys, y, r, err)
}

// applyFloat32Widened applies o, which has no float32 kernel, to the float32
// tensor x: the output is the widened computation's (opkit.ApplyWidened), but the
// rule keeps only x and y, as a native float32 rule does, and makes the widened
// rule, with its double-precision copies, when a sweep first asks for it (which
// evaluates the op once more; the functions of this package are deterministic). A
// recorded chain of them so holds float32 values only: half the bytes of a
// float64 chain's values, where the widened rule's copies held 2.5 times them.
func (o *unaryOp) applyFloat32Widened(in []cr.NodeID, x *tensor.Dense, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	xs := []*tensor.Dense{x}
	if _, err := applySingle(o, in, xs, ys); err != nil {
		return nil, err
	}
	return &float32Rule{op: o, in: [1]cr.NodeID{in[0]}, x: x, y: ys[0]}, nil
}

// float32Rule is the rule of a unary op applied to a float32 input, natively or
// through applyFloat32Widened.
type float32Rule struct {
	op   *unaryOp
	in   [1]cr.NodeID
	x, y *tensor.Dense // the float32 input and output (y contiguous)

	wide lazyWide // the widened rule, made on first use
}

var (
	_ cr.ForwardRule[*tensor.Dense]      = (*float32Rule)(nil)
	_ cr.SecondOrderRule[*tensor.Dense]  = (*float32Rule)(nil)
	_ cr.PullbackRecorder[*tensor.Dense] = (*float32Rule)(nil)
)

func (r *float32Rule) Inputs() []cr.NodeID { return r.in[:] }

// InputTangentsOnly marks the second-order pullback as reading the input's
// tangent and never the output's (chainrules.InputTangentsOnly, as unaryRule's;
// the widened rule it may hand over to is a unaryRule).
func (*float32Rule) InputTangentsOnly() {}

// FreshStorage marks the rule's output and the values its methods return as
// storage of their own (chainrules.FreshStorage), so that a released tape reuses
// it: the float32 kernels write into new buffers (vmath.MakeNoZero), and the
// widened rule's float64 results are rounded to float32, which copies them; the
// output of applyFloat32Widened is such a rounded copy too.
func (*float32Rule) FreshStorage() {}

// widened returns the double-precision rule at x widened (opkit.ApplyWidened),
// made on first use.
func (r *float32Rule) widened() (cr.Rule[*tensor.Dense], error) {
	return r.wide.get(r.op, r.in[:], []*tensor.Dense{r.x})
}

// lazyWide is the widened double-precision rule of a single-precision
// application (opkit.ApplyWidened of the op at its inputs), made when first asked
// for, once even if its rule's methods run concurrently.
type lazyWide struct {
	once sync.Once
	rule cr.Rule[*tensor.Dense]
	err  error
}

// get returns the widened rule of op applied to x (the nodes in).
func (l *lazyWide) get(op cr.Op[*tensor.Dense], in []cr.NodeID, x []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	l.once.Do(func() { l.rule, l.err = applySingle(op, in, x, make([]*tensor.Dense, 1)) })
	return l.rule, l.err
}

// times returns F'(x) v in float32 for a float32 v of x's shape, or nil for
// another v (which the widened rule takes).
func (r *float32Rule) times(v *tensor.Dense) (*tensor.Dense, error) {
	if r.op.spec.Real.singleD1 == nil || v.DType() != tensor.Float32 || !slices.Equal(v.Shape(), r.y.Shape()) {
		return nil, nil
	}
	vv := v.Contiguous().Float32s()
	out := vmath.MakeNoZero[float32](len(vv))
	r.op.spec.Real.singleD1(out, r.y.Float32s(), vv)
	return tensor.FromFloat32(out, r.y.Shape()...)
}

// Pullback sets xbar = F'(x) ybar.
func (r *float32Rule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	if len(ybar) != 1 || (len(has) == 1 && !has[0]) || ybar[0] == nil {
		return dst, nil
	}
	xbar, err := r.times(ybar[0])
	if err != nil {
		return dst, err
	}
	if xbar == nil {
		w, err := r.widened()
		if err != nil {
			return dst, err
		}
		return w.Pullback(ybar, has, dst)
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar}), nil
}

// Forward sets ydot = F'(x) xdot.
func (r *float32Rule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, ok := tangentOf(r.in[0])
	if !ok {
		return nil
	}
	yd, err := r.times(xdot)
	if err != nil {
		return err
	}
	if yd == nil {
		w, err := r.widened()
		if err != nil {
			return err
		}
		return w.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
	}
	ydot[0], has[0] = yd, true
	return nil
}

// PullbackWithTangents sets xbar = F'(x) ybar and xbardot = F'(x) ybardot +
// F"(x) xdot ybar, in float32 for the ops with a float32 second-order kernel
// (Func1.singleD2: exp, tanh, sigmoid, relu, sqrt) and float32 arguments of the
// output's shape;
// otherwise it is the widened rule's.
func (r *float32Rule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	if d, ok := r.second(a); ok {
		return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d}), nil
	}
	w, err := r.widened()
	if err != nil {
		return dst, err
	}
	return w.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
}

// second returns the pair (xbar, xbardot) of PullbackWithTangents computed in
// float32, or ok false when the op has no float32 second-order kernel or an
// argument is not a float32 tensor of the output's shape. xbardot is absent when
// ybardot and xdot both are, as in the double-precision rule.
func (r *float32Rule) second(a cr.SecondOrderArgs[*tensor.Dense]) (d cr.Dual[*tensor.Dense], ok bool) {
	kernel := r.op.spec.Real.singleD2
	if kernel == nil || len(a.Cotangents) != 1 {
		return d, false
	}
	ct, shape := a.Cotangents[0], r.y.Shape()
	var ybardot, xdot *tensor.Dense
	if ct.HasTangent {
		ybardot = ct.Tangent
	}
	if t, has := a.TangentOf(r.in[0]); has {
		xdot = t
	}
	w, ok1 := f32(ct.Value, shape)
	wd, ok2 := f32(ybardot, shape)
	xd, ok3 := f32(xdot, shape)
	if ct.Value == nil || !ok1 || !ok2 || !ok3 {
		return d, false
	}
	n := len(w)
	xb := vmath.MakeNoZero[float32](n)
	if wd == nil && xd == nil {
		r.op.spec.Real.singleD1(xb, r.y.Float32s(), w)
		d.Value, _ = tensor.FromFloat32(xb, shape...)
		return d, true
	}
	xbd := vmath.MakeNoZero[float32](n)
	kernel(xb, xbd, r.y.Float32s(), w, wd, xd)
	d.Value, _ = tensor.FromFloat32(xb, shape...)
	d.Tangent, _ = tensor.FromFloat32(xbd, shape...)
	d.HasTangent = true
	return d, true
}

// RecordPullback is the widened rule's: the double-precision recorded pullback on
// the widened nodes, cast back to float32.
func (r *float32Rule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	w, err := r.widened()
	if err != nil {
		return nil, err
	}
	return w.(cr.PullbackRecorder[*tensor.Dense]).RecordPullback(rec, x, y, ybar)
}

// expD1Single sets dst = y v, exp's F'(x) v in float32.
func expD1Single(dst, y, v []float32) {
	y = y[:len(dst)]
	v = v[:len(dst)]
	for i := range dst {
		dst[i] = y[i] * v[i]
	}
}

// tanhD1Single sets dst = (1 - y)(1 + y) v, tanh's F'(x) v in float32: 1 - y is
// exact for y near ±1, where 1 - y² would cancel (vmath.TanhPull32, vectorised).
func tanhD1Single(dst, y, v []float32) { vmath.TanhPull32(dst, y, v) }

// sigmoidD1Single sets dst = y (1 - y) v, sigmoid's F'(x) v in float32.
func sigmoidD1Single(dst, y, v []float32) {
	y = y[:len(dst)]
	v = v[:len(dst)]
	for i := range dst {
		dst[i] = y[i] * (1 - y[i]) * v[i]
	}
}

// expD2Single is exp's second-order pullback in float32: F' = F" = y, so xb = y w
// and xbd = y wd + y xd w (a nil wd or xd is zero).
func expD2Single(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	y, w, xbd = y[:n], w[:n], xbd[:n]
	for i := range xb {
		xb[i] = y[i] * w[i]
		var s float32
		if wd != nil {
			s = y[i] * wd[i]
		}
		if xd != nil {
			s += y[i] * xd[i] * w[i]
		}
		xbd[i] = s
	}
}

// tanhD2Single is tanh's second-order pullback in float32: F' = (1 - y)(1 + y)
// and F" = -2 y F', so xb = F' w and xbd = F' wd - 2 y F' xd w.
func tanhD2Single(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	y, w, xbd = y[:n], w[:n], xbd[:n]
	switch {
	case wd != nil && xd != nil:
		vmath.TanhPullTangent32(xb, xbd, y, w, wd, xd) // vectorised
	case xd != nil:
		xd = xd[:n]
		for i := range xb {
			d := (1 - y[i]) * (1 + y[i])
			xb[i] = d * w[i]
			xbd[i] = -2 * y[i] * d * xd[i] * w[i]
		}
	default:
		wd = wd[:n]
		for i := range xb {
			d := (1 - y[i]) * (1 + y[i])
			xb[i] = d * w[i]
			xbd[i] = d * wd[i]
		}
	}
}

// sigmoidD2Single is sigmoid's second-order pullback in float32: F' = y (1 - y)
// and F" = F' (1 - 2y), so xb = F' w and xbd = F' wd + F' (1 - 2y) xd w (a nil wd
// or xd is zero).
func sigmoidD2Single(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	y, w, xbd = y[:n], w[:n], xbd[:n]
	for i := range xb {
		d := y[i] * (1 - y[i])
		xb[i] = d * w[i]
		var s float32
		if wd != nil {
			s = d * wd[i]
		}
		if xd != nil {
			s += d * (1 - 2*y[i]) * xd[i] * w[i]
		}
		xbd[i] = s
	}
}

// reluSingle sets dst = max(x, 0) in float32 (NaN stays NaN, -0 gives +0, as
// relu).
func reluSingle(dst, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = max(v, 0)
	}
}

// reluD1Single sets dst = [y > 0] v, relu's F'(x) v with relu'(0) = 0 (y > 0
// exactly where x > 0); the product is kept, as in reluPull, so that 0 times an
// infinite or NaN v is NaN.
func reluD1Single(dst, y, v []float32) {
	y = y[:len(dst)]
	v = v[:len(dst)]
	for i := range dst {
		var m float32
		if y[i] > 0 {
			m = 1
		}
		dst[i] = m * v[i]
	}
}

// sqrtSingle sets dst = sqrt(x), correctly rounded: the square root of a float32
// in double precision rounds to the correctly rounded float32 one.
func sqrtSingle(dst, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = float32(math.Sqrt(float64(v)))
	}
}

// sqrtD1Single sets dst = (0.5/y) v, sqrt's F'(x) v in float32.
func sqrtD1Single(dst, y, v []float32) {
	y = y[:len(dst)]
	v = v[:len(dst)]
	for i := range dst {
		dst[i] = 0.5 / y[i] * v[i]
	}
}

// reluD2Single is relu's second-order pullback in float32: F' = [y > 0] and
// F" = 0, so xb = F' w and xbd = F' wd + (0 xd) w (a nil wd or xd is zero),
// the zero product kept as in the double-precision rule, so that an infinite or
// NaN xd or w gives NaN there too.
func reluD2Single(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	y, w, xbd = y[:n], w[:n], xbd[:n]
	var zero float32
	for i := range xb {
		var m float32
		if y[i] > 0 {
			m = 1
		}
		xb[i] = m * w[i]
		var s float32
		if wd != nil {
			s = m * wd[i]
		}
		if xd != nil {
			s += zero * xd[i] * w[i]
		}
		xbd[i] = s
	}
}

// sqrtD2Single is sqrt's second-order pullback in float32: F' = 0.5/y and
// F" = -0.25/(y x) = -0.25/y³, so xb = F' w and xbd = F' wd + F" xd w (a nil wd
// or xd is zero). The F" term is formed in double precision and rounded once,
// as y³ leaves float32's range long before the term does.
func sqrtD2Single(xb, xbd, y, w, wd, xd []float32) {
	n := len(xb)
	y, w, xbd = y[:n], w[:n], xbd[:n]
	for i := range xb {
		d := 0.5 / y[i]
		xb[i] = d * w[i]
		var s float32
		if wd != nil {
			s = d * wd[i]
		}
		if xd != nil {
			yi := float64(y[i])
			s += float32(-0.25 / (yi * yi * yi) * float64(xd[i]) * float64(w[i]))
		}
		xbd[i] = s
	}
}

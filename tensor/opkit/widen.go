package opkit

import (
	"fmt"
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Single precision through double. ApplyWidened runs ops defined in double
// precision on float32 and complex64 tensors: an application with a
// single-precision input runs the op's double-precision definition on the inputs
// widened exactly (float32 to float64, complex64 to complex128) and rounds each
// output once to single precision, to the dtype tensor.PromoteTypes gives the inputs (a float64 or complex128 input next to
// a float32 one keeps the result double, as in PyTorch). Its rule does the same for
// every derivative: the cotangents and tangents it is given are widened, the
// double-precision rule runs, and each input's cotangent (and tangent) is rounded
// to that input's dtype. A single-precision result is so the correctly rounded
// double-precision one, up to one rounding of the double computation's own error:
// a reduction of n float32 elements, accumulated in float64, is within
// u32 |S| + n u64 sum |x_i| of the exact sum S (u32 = 2^-24, u64 = 2^-53), the
// error of one rounding for n below 2^29. The cost is the conversions (and double
// precision's speed, not single's).
//
// The recorded pullback (chainrules.PullbackRecorder) is the double-precision
// rule's, recorded with the same registered ops on the single-precision nodes, so
// derivatives of every order stay in single precision, provided those ops take
// single precision too.

// HasSingle reports whether some input is float32 or complex64.
func HasSingle(xs []*tensor.Dense) bool {
	for _, x := range xs {
		if x != nil && x.DType().IsSingle() {
			return true
		}
	}
	return false
}

// widenAll returns xs with every single-precision tensor widened exactly.
func widenAll(xs []*tensor.Dense) ([]*tensor.Dense, error) {
	out := make([]*tensor.Dense, len(xs))
	for k, x := range xs {
		var err error
		if out[k], err = (tensor.Space{}).Widen(x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// narrowTo returns v rounded to single precision of its kind when single is set
// (float64 to float32, complex128 to complex64), and v otherwise.
func narrowTo(v *tensor.Dense, single bool) (*tensor.Dense, error) {
	if !single || v == nil {
		return v, nil
	}
	switch v.DType() {
	case tensor.Float64:
		return tensor.AsType(v, tensor.Float32)
	case tensor.Complex128:
		return tensor.AsType(v, tensor.Complex64)
	}
	return v, nil
}

// asDType returns v converted to the dtype of like (a cotangent to its input's).
func asDType(v, like *tensor.Dense) (*tensor.Dense, error) {
	if v == nil {
		return nil, nil
	}
	return tensor.AsType(v, like.DType())
}

// ApplyWidened applies op, whose Apply handles double precision, to xs, some of which
// are single precision (the body of an op's Apply for them: see the package doc): the inputs are widened, and the outputs rounded to single
// precision when every input is single precision (else tensor.PromoteTypes keeps them
// double). The rule wraps the double-precision rule (see singleRule).
func ApplyWidened(op cr.Op[*tensor.Dense], in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if err := CheckInputsAll(op.Name(), xs, len(xs)); err != nil {
		return nil, err
	}
	wide, err := widenAll(xs)
	if err != nil {
		return nil, err
	}
	wys := make([]*tensor.Dense, len(ys))
	r, err := op.Apply(in, wide, wys)
	if err != nil {
		return nil, err
	}
	narrow := true
	for _, x := range xs {
		narrow = narrow && x.DType().IsSingle()
	}
	for j, y := range wys {
		if ys[j], err = narrowTo(y, narrow); err != nil {
			return nil, err
		}
	}
	sr := &singleRule{inner: r, x: slices.Clone(xs), narrow: narrow}
	if _, fresh := r.(cr.FreshStorage); fresh || narrow {
		return freshSingleRule{sr}, nil
	}
	return sr, nil
}

// freshSingleRule is a singleRule that promises fresh storage
// (chainrules.FreshStorage), so that a tape with recycling reuses its values. It
// is the rule of an application whose inputs are all single precision, where every
// output, cotangent and tangent it hands out is a new rounding of a double-precision
// value, or whose double-precision rule makes that promise itself (the values it
// passes through are that rule's, or roundings of them).
type freshSingleRule struct{ *singleRule }

// FreshStorage implements chainrules.FreshStorage.
func (freshSingleRule) FreshStorage() {}

// ApplyWidenedMasked is ApplyWidened for an op applied with the mask need (its
// chainrules.MaskedOp.ApplyMasked; a nil need, or an op that is not a MaskedOp:
// Apply), whose failure it reports with the dtypes the caller gave: an error of
// the double-precision application, which names the widened dtypes, is wrapped as
// "<err> (<op> given <dtypes>, computed in double precision)", its sentinel kept.
// It is the body of a single-precision Apply or ApplyMasked of an op whose
// kernels are double precision only (nn's and linalg's).
func ApplyWidenedMasked(op cr.Op[*tensor.Dense], in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	r, err := ApplyWidened(maskedApply{Op: op, need: need}, in, x, y)
	if err != nil {
		dts := make([]string, len(x))
		for k, v := range x {
			dts[k] = DescribeOf(v)
		}
		return nil, fmt.Errorf("%w (%s given %s, computed in double precision)", err, op.Name(), strings.Join(dts, ", "))
	}
	return r, nil
}

// maskedApply is op whose Apply is its ApplyMasked with need fixed (op's Apply when
// need is nil or op is not a chainrules.MaskedOp): the op that ApplyWidened, which
// calls Apply, runs in double precision without losing the mask.
type maskedApply struct {
	cr.Op[*tensor.Dense]
	need []bool
}

func (o maskedApply) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if m, ok := o.Op.(cr.MaskedOp[*tensor.Dense]); ok && o.need != nil {
		return m.ApplyMasked(in, x, y, o.need)
	}
	return o.Op.Apply(in, x, y)
}

// singleRule is the rule of a single-precision application: the double-precision
// rule inner, with the arguments widened and the results rounded (cotangents to
// their input's dtype, output tangents to the outputs' dtype).
type singleRule struct {
	inner  cr.Rule[*tensor.Dense]
	x      []*tensor.Dense // the inputs as given, for their dtypes
	narrow bool            // the outputs are single precision
}

func (r *singleRule) Inputs() []cr.NodeID { return r.inner.Inputs() }

// input returns the input that node id names (nil if none).
func (r *singleRule) input(id cr.NodeID) *tensor.Dense {
	for k, in := range r.inner.Inputs() {
		if in == id {
			return r.x[k]
		}
	}
	return nil
}

// narrowContribution rounds a cotangent of the input node to that input's dtype.
func (r *singleRule) narrowContribution(node cr.NodeID, v *tensor.Dense) (*tensor.Dense, error) {
	like := r.input(node)
	if like == nil || v == nil {
		return v, nil
	}
	return asDType(v, like)
}

func (r *singleRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	wide := make([]*tensor.Dense, len(ybar))
	for j, v := range ybar {
		if has[j] {
			var err error
			if wide[j], err = (tensor.Space{}).Widen(v); err != nil {
				return dst, err
			}
		}
	}
	n := len(dst)
	dst, err := r.inner.Pullback(wide, has, dst)
	if err != nil {
		return dst, err
	}
	for i := n; i < len(dst); i++ {
		if dst[i].Value, err = r.narrowContribution(dst[i].Node, dst[i].Value); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// widenTangents returns tangentOf with its tangents widened.
func widenTangents(tangentOf cr.TangentOf[*tensor.Dense]) cr.TangentOf[*tensor.Dense] {
	return func(id cr.NodeID) (*tensor.Dense, bool) {
		t, ok := tangentOf(id)
		if !ok {
			return t, false
		}
		w, err := (tensor.Space{}).Widen(t)
		if err != nil {
			return nil, false
		}
		return w, true
	}
}

// Forward is the inner rule's Forward on widened tangents, the output tangents
// rounded like the outputs.
func (r *singleRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	f, ok := r.inner.(cr.ForwardRule[*tensor.Dense])
	if !ok {
		return cr.Errorf(cr.ErrNoRule, "single precision: the rule has no forward mode")
	}
	if err := f.Forward(widenTangents(tangentOf), ydot, has); err != nil {
		return err
	}
	for j := range ydot {
		if has[j] {
			var err error
			if ydot[j], err = narrowTo(ydot[j], r.narrow); err != nil {
				return err
			}
		}
	}
	return nil
}

// PullbackWithTangents is the inner rule's on widened arguments, each pair rounded
// to its input's dtype.
func (r *singleRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	s, ok := r.inner.(cr.SecondOrderRule[*tensor.Dense])
	if !ok {
		return dst, cr.Errorf(cr.ErrHVPNotSupported, "single precision: the rule has no second-order method")
	}
	var sp tensor.Space
	widen := func(d cr.Dual[*tensor.Dense], present bool) (cr.Dual[*tensor.Dense], error) {
		if !present {
			return d, nil
		}
		var err error
		if d.Value, err = sp.Widen(d.Value); err != nil {
			return d, err
		}
		if d.HasTangent {
			d.Tangent, err = sp.Widen(d.Tangent)
		}
		return d, err
	}
	w := cr.SecondOrderArgs[*tensor.Dense]{
		Cotangents: make([]cr.Dual[*tensor.Dense], len(a.Cotangents)),
		Has:        a.Has,
		Outputs:    make([]cr.Dual[*tensor.Dense], len(a.Outputs)),
		TangentOf:  widenTangents(a.TangentOf),
	}
	var err error
	for j := range a.Cotangents {
		if w.Cotangents[j], err = widen(a.Cotangents[j], a.Has[j]); err != nil {
			return dst, err
		}
	}
	for j := range a.Outputs {
		if w.Outputs[j], err = widen(a.Outputs[j], true); err != nil {
			return dst, err
		}
	}
	n := len(dst)
	if dst, err = s.PullbackWithTangents(w, dst); err != nil {
		return dst, err
	}
	for i := n; i < len(dst); i++ {
		c := &dst[i].Cotangent
		if c.Value, err = r.narrowContribution(dst[i].Node, c.Value); err != nil {
			return dst, err
		}
		if c.HasTangent {
			if c.Tangent, err = r.narrowContribution(dst[i].Node, c.Tangent); err != nil {
				return dst, err
			}
		}
	}
	return dst, nil
}

// RecordPullback records the inner rule's pullback in double precision: the
// single-precision nodes it reads (inputs, outputs, cotangents) are widened by a
// recorded cast, the inner rule records its ops on the widened nodes, and each
// cotangent it returns is cast back to its input's dtype. The casts are linear
// ops (CastOp) whose pullbacks are the casts back, so the recorded pullback is
// differentiable to every order the inner one is.
func (r *singleRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	p, ok := r.inner.(cr.PullbackRecorder[*tensor.Dense])
	if !ok {
		return nil, cr.ErrOrderNotSupported
	}
	widen := func(ids []cr.NodeID) ([]cr.NodeID, error) {
		out := make([]cr.NodeID, len(ids))
		for k, id := range ids {
			if !id.Valid() {
				continue
			}
			v, err := rec.Value(id)
			if err != nil {
				return nil, err
			}
			out[k] = id
			if v.DType().IsSingle() {
				out[k] = rec.Apply(CastOp(wideOf(v.DType())), id)
			}
		}
		return out, rec.Err()
	}
	wx, err := widen(x)
	if err != nil {
		return nil, err
	}
	wy, err := widen(y)
	if err != nil {
		return nil, err
	}
	wybar, err := widen(ybar)
	if err != nil {
		return nil, err
	}
	xbar, err := p.RecordPullback(rec, wx, wy, wybar)
	if err != nil {
		return nil, err
	}
	out := make([]cr.NodeID, len(xbar))
	for k, id := range xbar {
		out[k] = id
		if id.Valid() && k < len(r.x) && r.x[k].DType().IsSingle() {
			out[k] = rec.Apply(CastOp(r.x[k].DType()), id)
		}
	}
	return out, rec.Err()
}

// wideOf returns the double-precision dtype of dt's kind.
func wideOf(dt tensor.DType) tensor.DType {
	switch dt {
	case tensor.Float32:
		return tensor.Float64
	case tensor.Complex64:
		return tensor.Complex128
	}
	return dt
}

// CastOp returns the op y = tensor.AsType(x, dt) (a fresh copy when x already has dtype
// dt) for casts within a kind (float32 and float64, complex64 and complex128),
// the casts single-precision rules record around their double-precision
// pullbacks. It is linear: its pullback and its forward tangent are the casts of
// the cotangent back to x's dtype and of the tangent to dt, which makes it
// differentiable to every order. A cast between real and complex dtypes, or to an
// invalid dtype, is an error wrapping chainrules.ErrInvalidArgument.
func CastOp(dt tensor.DType) cr.Op[*tensor.Dense] { return castOp{to: dt} }

type castOp struct{ to tensor.DType }

func (o castOp) Name() string    { return "astype_" + o.to.String() }
func (o castOp) NumOutputs() int { return 1 }

func (o castOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if err := CheckApplyAll(o.Name(), in, x, 1); err != nil {
		return nil, err
	}
	from := x[0].DType()
	if !o.to.Valid() || from.IsComplex() != o.to.IsComplex() {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: cannot cast %s", o.Name(), x[0].Describe())
	}
	cast := func(to tensor.DType) func(v *tensor.Dense) (*tensor.Dense, error) {
		return func(v *tensor.Dense) (*tensor.Dense, error) {
			if v == nil {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil tensor", o.Name())
			}
			if v.DType() == to {
				return v.Clone(), nil
			}
			return tensor.AsType(v, to)
		}
	}
	v, err := cast(o.to)(x[0])
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.UnaryLinearRule(in[0], cast(o.to), cast(from)), nil
}

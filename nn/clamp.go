package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// ClampOp returns PyTorch's clamp(x, min=lo, max=hi) of a float64 tensor with
// scalar bounds:
//
//	y = min(max(x, lo), hi)    (so y = hi everywhere when lo > hi; NaN stays NaN)
//
// with PyTorch's gradient convention at the bounds: the derivative is 1 where
// lo <= x <= hi (the bounds included) and 0 elsewhere (and for NaN x), so
//
//	xbar = [lo <= x <= hi] ybar,   ydot = [lo <= x <= hi] xdot,   xbardot = [lo <= x <= hi] ybardot.
//
// It is an elementwise op (elementwise.Unary). Complex input is an error wrapping
// chainrules.ErrInvalidArgument. ClampTensorOp takes tensor bounds.
//
// Its derivative is recorded as the indicator op clamp_inside (whose own derivative
// is zero), so it has derivatives of every order.
func ClampOp(lo, hi float64) cr.Op[*tensor.Dense] {
	inside := func(x float64) bool { return lo <= x && x <= hi }
	indicator := func(x float64) float64 {
		if inside(x) {
			return 1
		}
		return 0
	}
	insideOp := elementwise.Unary("clamp_inside", elementwise.UnarySpec{
		Real: elementwise.Func1[float64]{
			F:  indicator,
			D1: func(float64, float64) float64 { return 0 },
			D2: func(float64, float64) float64 { return 0 },
		},
		// Piecewise constant: the derivative is zero.
		Deriv: func(cr.Recorder[*tensor.Dense], cr.NodeID, cr.NodeID) (cr.NodeID, error) { return 0, nil },
	})
	return elementwise.Unary("clamp", elementwise.UnarySpec{
		Real: elementwise.Func1[float64]{
			F:  func(x float64) float64 { return min(max(x, lo), hi) },
			D1: func(x, _ float64) float64 { return indicator(x) },
			D2: func(float64, float64) float64 { return 0 },
		},
		Deriv: func(r cr.Recorder[*tensor.Dense], x, _ cr.NodeID) (cr.NodeID, error) {
			return r.Apply(insideOp, x), nil
		},
	})
}

// Clamp evaluates ClampOp(lo, hi) at x without a tape.
func Clamp(x *tensor.Dense, lo, hi float64) (*tensor.Dense, error) {
	return cr.Eval(ClampOp(lo, hi), x)
}

// ClampTensorOp is PyTorch's clamp(x, min=lo, max=hi) with tensor bounds: an
// op of arity 3 on float64 tensors x, lo and hi that broadcast together (NumPy's
// rules; a 0-d tensor is a scalar bound), all three differentiable:
//
//	y = min(max(x, lo), hi).
//
// Each output element is one of the inputs' elements, and its derivative goes to
// that input, chosen as PyTorch does:
//
//	hi   where lo > hi
//	x    where lo <= x <= hi      (the bounds included: x wins ties)
//	lo   where x < lo
//	hi   where x > hi
//	none where x, lo or hi is NaN (y is NaN)
//
// so the pullback sends ybar to the chosen input (summed over the axes it was
// broadcast along), the tangent is the chosen input's tangent, and the
// second-order rule is the pullback of ybardot (the map is piecewise linear).
// PyTorch's own backward gives no gradient to lo either when lo == hi and x < lo;
// this rule gives it to lo, as PyTorch's forward-mode rule (clamp_jvp) does, so
// that the pullback stays the adjoint of the tangent. Shapes that do not broadcast
// are an error wrapping chainrules.ErrShapeMismatch; complex input, one wrapping
// ErrInvalidArgument. The pullback is also recorded with linear ops (index.WhereOp
// and sums; chainrules.PullbackRecorder), so core.Tape.GradGraph differentiates
// through the op to every order.
var ClampTensorOp cr.Op[*tensor.Dense] = clampOp{}

// ClampTensor evaluates ClampTensorOp at (x, lo, hi) without a tape.
func ClampTensor(x, lo, hi *tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(ClampTensorOp, x, lo, hi)
}

type clampOp struct{}

func (clampOp) Name() string { return "clamp_tensor" }

// NumOutputs returns 1.
func (clampOp) NumOutputs() int { return 1 }

func (o clampOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, out, nil)
}

// ApplyMasked computes the clamp and the choice of each element; the rule leaves
// out the inputs whose need is false.
func (o clampOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, need)
	}
	const name = "clamp_tensor"
	if err := checkRealApply(name, in, x, 3); err != nil {
		return nil, err
	}
	shape, err := tensor.BroadcastShapes(x[0].Shape(), x[1].Shape(), x[2].Shape())
	if err != nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s, %s and %s do not broadcast", name, x[0].Describe(), x[1].Describe(), x[2].Describe())
	}
	v := make([][]float64, 3)
	for k := range v {
		if v[k], err = broadcastData(x[k], shape); err != nil {
			return nil, err
		}
	}
	r := &clampRule{in: slices.Clone(in), shape: shape, sel: make([]uint8, len(v[0]))}
	for k := range r.need {
		r.need[k] = need == nil || need[k]
		r.inShape[k] = slices.Clone(x[k].Shape())
	}
	y := make([]float64, len(v[0]))
	for i, xi := range v[0] {
		lo, hi := v[1][i], v[2][i]
		y[i] = min(max(xi, lo), hi)
		switch {
		case lo > hi:
			r.sel[i] = 2
		case lo <= xi && xi <= hi:
			r.sel[i] = 0
		case xi < lo:
			r.sel[i] = 1
		case xi > hi:
			r.sel[i] = 2
		default:
			r.sel[i] = none
		}
		if math.IsNaN(xi) || math.IsNaN(lo) || math.IsNaN(hi) {
			r.sel[i] = none
		}
	}
	yv, err := tensor.FromFloat64(y, shape...)
	if err != nil {
		return nil, err
	}
	out[0] = yv
	return r, nil
}

// none marks an output element whose derivative goes to no input.
const none = 3

// broadcastData returns the row-major elements of x broadcast to shape (a fresh
// copy unless x already has that shape and is contiguous: for reading only).
func broadcastData(x *tensor.Dense, shape []int) ([]float64, error) {
	if slices.Equal(x.Shape(), shape) {
		return float64s(x), nil
	}
	b, err := x.BroadcastTo(shape...)
	if err != nil {
		return nil, err
	}
	return b.Float64s(), nil
}

type clampRule struct {
	in      []cr.NodeID
	need    [3]bool
	inShape [3][]int
	shape   []int
	sel     []uint8
}

func (r *clampRule) Inputs() []cr.NodeID { return r.in }

// route returns the cotangent of input k: v where the element chose k, summed to
// input k's shape.
func (r *clampRule) route(v []float64, k int) (*tensor.Dense, error) {
	g := make([]float64, len(v))
	for i, s := range r.sel {
		if int(s) == k {
			g[i] = v[i]
		}
	}
	gt, err := tensor.FromFloat64(g, r.shape...)
	if err != nil {
		return nil, err
	}
	if slices.Equal(r.inShape[k], r.shape) {
		return gt, nil
	}
	return tensor.SumTo(gt, r.inShape[k])
}

// data checks a cotangent (or tangent) of the output and returns its elements.
func (r *clampRule) data(v *tensor.Dense, what string) ([]float64, error) {
	if v == nil || v.DType() != tensor.Float64 || !slices.Equal(v.Shape(), r.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "clamp_tensor: %s is %s, the output is float64%v", what, describe(v), r.shape)
	}
	return float64s(v), nil
}

func (r *clampRule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	v, err := r.data(ybar, "cotangent")
	if err != nil {
		return dst, err
	}
	for k, id := range r.in {
		if !r.need[k] {
			continue
		}
		g, err := r.route(v, k)
		if err != nil {
			return dst, err
		}
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: id, Value: g})
	}
	return dst, nil
}

func (r *clampRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	var td [3][]float64
	any := false
	for k, id := range r.in {
		t, ok := tangentOf(id)
		if !ok || !r.need[k] {
			continue
		}
		if t == nil || t.DType() != tensor.Float64 || !slices.Equal(t.Shape(), r.inShape[k]) {
			return cr.Errorf(cr.ErrShapeMismatch, "clamp_tensor: tangent of input %d is %s", k, describe(t))
		}
		var err error
		if td[k], err = broadcastData(t, r.shape); err != nil {
			return err
		}
		any = true
	}
	if !any {
		return nil
	}
	y := make([]float64, len(r.sel))
	for i, s := range r.sel {
		if s != none && td[s] != nil {
			y[i] = td[s][i]
		}
	}
	out, err := tensor.FromFloat64(y, r.shape...)
	ydot[0], has[0] = out, err == nil
	return err
}

func (r *clampRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	v, err := r.data(ct.Value, "cotangent")
	if err != nil {
		return dst, err
	}
	var vd []float64
	if ct.HasTangent {
		if vd, err = r.data(ct.Tangent, "cotangent tangent"); err != nil {
			return dst, err
		}
	}
	for k, id := range r.in {
		if !r.need[k] {
			continue
		}
		var d cr.Dual[*tensor.Dense]
		if d.Value, err = r.route(v, k); err != nil {
			return dst, err
		}
		if vd != nil {
			if d.Tangent, err = r.route(vd, k); err != nil {
				return dst, err
			}
			d.HasTangent = true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: id, Cotangent: d})
	}
	return dst, nil
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder): the
// cotangent of input k is where(chose k, ybar, 0) (index.WhereOp with the recorded
// choice as its mask) summed to input k's shape. Both are linear ops, so the
// recorded pullback is differentiable to every order (its derivatives in x, lo and
// hi are zero away from the switching points, as the second-order rule says).
func (r *clampRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	out := make([]cr.NodeID, len(r.in))
	g := ybar[0]
	if !g.Valid() {
		return out, nil
	}
	var zero cr.NodeID
	for k := range r.in {
		if !r.need[k] {
			continue
		}
		if !zero.Valid() {
			var err error
			if zero, err = constant(rec, "clamp_tensor", tensor.Scalar(0)); err != nil {
				return nil, err
			}
		}
		mask := make([]bool, len(r.sel))
		for i, s := range r.sel {
			mask[i] = int(s) == k
		}
		v := rec.Apply(index.WhereOp(mask, r.shape...), g, zero)
		out[k] = recordSumTo(rec, v, r.shape, r.inShape[k])
	}
	return out, rec.Err()
}

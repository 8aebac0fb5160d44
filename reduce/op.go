package reduce

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// kind computes one reduction in the canonical layout: the output and the rule.
type kind interface {
	apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error)
}

// op is a reduction family member with its axes and keepdims fixed.
type op struct {
	name     string
	axes     []int
	keep     bool
	realOnly bool // ordered or NaN-aware reductions have no complex form
	nonEmpty bool // the reduction of an empty slice is undefined (max, min)
	kind     kind
}

func newOp(name string, axes []int, keep bool, k kind) *op {
	return &op{name: name, axes: slices.Clone(axes), keep: keep, kind: k}
}

func (o *op) Name() string { return o.name }

func (o *op) Apply(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	if len(x) != 1 || len(in) != 1 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d inputs, want 1", o.name, len(x))
	}
	if x[0] == nil {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", o.name)
	}
	if o.realOnly && x[0].DType() != tensor.Float64 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s input: defined for float64 only", o.name, x[0].Describe())
	}
	p, err := newPlan(o.name, x[0].Shape(), o.axes, o.keep)
	if err != nil {
		return nil, nil, err
	}
	if o.nonEmpty && p.r == 0 && p.a*p.b > 0 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: reduction over an empty axis of %s", o.name, x[0].Describe())
	}
	return o.kind.apply(p, in[0], x[0])
}

// eval runs an op without a tape.
func eval(o cr.Op[*tensor.Dense], x *tensor.Dense) (*tensor.Dense, error) {
	y, _, err := o.Apply([]cr.NodeID{0}, []*tensor.Dense{x})
	return y, err
}

// tangent fetches the tangent of the input in canonical layout, or nil if absent.
func tangent[T elem](p *plan, in cr.NodeID, tangentOf cr.TangentOf[*tensor.Dense]) []T {
	t, ok := tangentOf(in)
	if !ok {
		return nil
	}
	return elems[T](p.canonical(t))
}

// weighted is the rule of reductions whose pullback multiplies the broadcast
// cotangent by a weight per input element, xbar[i,k,j] = conj(w[i,k,j]) ybar[i,j],
// so that ydot[i,j] = sum_k w[i,k,j] xdot[i,k,j]: nansum and nanmean. The weight is
// a function of the input element and of per-output data; its derivative along xdot
// gives the second-order term. (sum and mean, amax and amin, and logsumexp have
// dedicated rules whose kernels make no call per element.)
type weighted[T elem] struct {
	in cr.NodeID
	p  *plan
	x  []T // input in canonical layout
	// c is the weight of every element when w is nil (sum, mean).
	c T
	// w returns the weight of input element x at output index o = i*b + j.
	w func(x T, o int) T
	// dw, if set, returns the derivative of that weight along the tangent xd of the
	// element, given the output's tangent yd[o] (the JVP); nil means the weights are
	// locally constant.
	dw func(x, xd T, o int, yd T) T
}

func (r *weighted[T]) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// pullback returns xbar[i,k,j] = conj(w[i,k,j]) g[i,j], plus conj(dw[i,k,j]) h[i,j]
// when xdot is given (yd is then the JVP along xdot).
func (r *weighted[T]) pullback(g, h, xdot, yd []T) *tensor.Dense {
	p := r.p
	buf := make([]T, p.a*p.r*p.b)
	if p.b == 1 && xdot == nil {
		// One output per row: the common case of reducing trailing axes.
		for i := range p.a {
			row, gi := buf[i*p.r:(i+1)*p.r], g[i]
			if r.w == nil {
				c := conj(r.c) * gi
				for k := range row {
					row[k] = c
				}
				continue
			}
			xs := r.x[i*p.r : (i+1)*p.r]
			for k, v := range xs {
				row[k] = conj(r.w(v, i)) * gi
			}
		}
		return restore(p, buf)
	}
	for i := range p.a {
		for k := range p.r {
			o := (i*p.r + k) * p.b
			dst, gi := buf[o:o+p.b], g[i*p.b:i*p.b+p.b]
			switch {
			case xdot != nil:
				xs, xd, hi := r.x[o:o+p.b], xdot[o:o+p.b], h[i*p.b:i*p.b+p.b]
				for j := range dst {
					oj := i*p.b + j
					dst[j] = conj(r.w(xs[j], oj))*gi[j] + conj(r.dw(xs[j], xd[j], oj, yd[oj]))*hi[j]
				}
			case r.w == nil:
				c := conj(r.c)
				for j := range dst {
					dst[j] = c * gi[j]
				}
			default:
				xs := r.x[o : o+p.b]
				for j := range dst {
					dst[j] = conj(r.w(xs[j], i*p.b+j)) * gi[j]
				}
			}
		}
	}
	return restore(p, buf)
}

func (r *weighted[T]) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: r.pullback(elems[T](ybar), nil, nil, nil)}), nil
}

// ForwardTangents returns ydot[i,j] = sum_k w[i,k,j] xdot[i,k,j].
func (r *weighted[T]) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xdot := tangent[T](r.p, r.in, tangentOf)
	if xdot == nil {
		return nil, false, nil
	}
	return output(r.p, r.jvp(xdot)), true, nil
}

func (r *weighted[T]) jvp(xdot []T) []T {
	p := r.p
	out := make([]T, p.a*p.b)
	for i := range p.a {
		acc := out[i*p.b : i*p.b+p.b]
		for k := range p.r {
			o := (i*p.r + k) * p.b
			xd := xdot[o : o+p.b]
			if r.w == nil {
				for j := range acc {
					acc[j] += r.c * xd[j]
				}
				continue
			}
			xs := r.x[o : o+p.b]
			for j := range acc {
				acc[j] += r.w(xs[j], i*p.b+j) * xd[j]
			}
		}
	}
	return out
}

// PullbackWithTangents returns xbar = conj(w) ybar and
// xbardot = conj(w) ybardot + conj(dw[xdot]) ybar.
func (r *weighted[T]) PullbackWithTangents(ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	g := elems[T](ct.Value)
	d := cr.Dual[*tensor.Dense]{Value: r.pullback(g, nil, nil, nil)}
	var xdot []T
	if r.dw != nil {
		xdot = tangent[T](r.p, r.in, tangentOf)
	}
	if ct.HasTangent || xdot != nil {
		h := make([]T, len(g))
		if ct.HasTangent {
			h = elems[T](ct.Tangent)
		}
		if xdot != nil {
			d.Tangent = r.pullback(h, g, xdot, r.jvp(xdot))
		} else {
			d.Tangent = r.pullback(h, nil, nil, nil)
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

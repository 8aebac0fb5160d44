package reduce

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// kind computes one reduction in the canonical layout: the output and the rule.
type kind interface {
	apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error)
}

// op is a reduction family member with its axes and keepdim fixed.
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

func (o *op) NumOutputs() int { return 1 }

func (o *op) Apply(in []cr.NodeID, x, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if l, ok := o.kind.(linear); ok && !l.nan && len(x) == 1 && x[0] != nil && x[0].DType() == tensor.Float32 {
		return o.applySum32(in, x, ys, l.mean)
	}
	if opkit.HasSingle(x) {
		// float32 and complex64: accumulated in double precision, rounded once
		// (opkit.ApplyWidened).
		return opkit.ApplyWidened(o, in, x, ys)
	}
	if err := opkit.CheckApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	if o.realOnly && x[0].DType() != tensor.Float64 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s input: defined for float64 only", o.name, x[0].Describe())
	}
	p, err := newPlan(o.name, x[0].Shape(), o.axes, o.keep)
	if err != nil {
		return nil, err
	}
	if o.nonEmpty && p.Len == 0 && p.Count() > 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: reduction over an empty axis of %s", o.name, x[0].Describe())
	}
	y, rule, err := o.kind.apply(p, in[0], x[0])
	if err != nil {
		return nil, err
	}
	ys[0] = y
	return rule, nil
}

// applySum32 applies sum or mean (mean true) to one float32 input natively (see
// sumSingle).
func (o *op) applySum32(in []cr.NodeID, x, ys []*tensor.Dense, mean bool) (cr.Rule[*tensor.Dense], error) {
	if err := opkit.CheckApplyAll(o.name, in, x, 1); err != nil {
		return nil, err
	}
	p, err := newPlan(o.name, x[0].Shape(), o.axes, o.keep)
	if err != nil {
		return nil, err
	}
	c := 1.0
	if mean {
		c = 1 / float64(p.Len)
	}
	y, rule := sumSingle(p, in[0], x[0], c)
	ys[0] = y
	return rule, nil
}

// firstOrder is the Pullback of a reduction whose pullback is pull(h, g, xdot) (see
// secondOrder): xbar = pull(g, nil, nil) for the output cotangent g.
func firstOrder[G, T tensor.Element](p *plan, in cr.NodeID, pull func(h, g []G, xdot []T) *tensor.Dense, ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g, err := cotangent[G](p, ybar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: in, Value: pull(g, nil, nil)}), nil
}

// secondOrder is the PullbackWithTangents of a reduction whose pullback, written
// pull(h, g, xdot), is linear in the output cotangent h, with a second term when the
// first-order cotangent g and the input tangent xdot are given: xbar = pull(g, nil,
// nil) for the cotangent g of the output, and xbardot = pull(gdot, g, xdot), or
// pull(gdot, nil, nil) without an input tangent, for the tangent gdot of the
// cotangent (zero when absent). G is the cotangent's element type, T the input's.
func secondOrder[G, T tensor.Element](p *plan, in cr.NodeID, pull func(h, g []G, xdot []T) *tensor.Dense, ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	g, err := cotangent[G](p, ct.Value)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: pull(g, nil, nil)}
	xdot, err := tangent[T](p, in, tangentOf)
	if err != nil {
		return dst, err
	}
	if ct.HasTangent || xdot != nil {
		var gd []G
		if ct.HasTangent {
			if gd, err = cotangent[G](p, ct.Tangent); err != nil {
				return dst, err
			}
		} else {
			gd = make([]G, len(g))
		}
		if xdot != nil {
			d.Tangent = pull(gd, g, xdot)
		} else {
			d.Tangent = pull(gd, nil, nil)
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: in, Cotangent: d}), nil
}

// tangent fetches the tangent of the input in canonical layout with inputElems, or
// nil if it is absent.
func tangent[T tensor.Element](p *plan, in cr.NodeID, tangentOf cr.TangentOf[*tensor.Dense]) ([]T, error) {
	t, ok := tangentOf(in)
	if !ok {
		return nil, nil
	}
	return inputElems[T](p, t)
}

// inputElems returns the input-shaped t (a tangent) in canonical layout as []T (its
// real part for a float64 T, never nil), or an error wrapping ErrShapeMismatch if t
// is not shaped like the input.
func inputElems[T tensor.Element](p *plan, t *tensor.Dense) ([]T, error) {
	if t == nil || !slices.Equal(t.Shape(), p.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent %s for input shape %v", p.name, opkit.DescribeOf(t), p.shape)
	}
	if !isComplex[T]() && t.DType() == tensor.Complex128 {
		t = t.Real()
	}
	return elems[T](p.canonical(t)), nil
}

// cotangent returns the elements of the output cotangent g as []T (its real part for
// a float64 T), or an error wrapping ErrShapeMismatch if g does not have the
// output's size.
func cotangent[T tensor.Element](p *plan, g *tensor.Dense) ([]T, error) {
	if g == nil || g.Size() != p.Count() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", p.name, opkit.DescribeOf(g), p.outShape)
	}
	if !isComplex[T]() && g.DType() == tensor.Complex128 {
		g = g.Real()
	}
	return elems[T](g), nil
}

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
	if o.nonEmpty && p.Len == 0 && p.Count() > 0 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: reduction over an empty axis of %s", o.name, x[0].Describe())
	}
	return o.kind.apply(p, in[0], x[0])
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
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent %s for input shape %v", p.name, describe(t), p.shape)
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
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", p.name, describe(g), p.outShape)
	}
	if !isComplex[T]() && g.DType() == tensor.Complex128 {
		g = g.Real()
	}
	return elems[T](g), nil
}

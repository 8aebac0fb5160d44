package hvp

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Layout is the shape of a parameter set — a list of float64 tensors of any shapes,
// such as an MLP's weights and biases, in the spirit of JAX's pytrees — and defines
// its flat view: the elements of each tensor in row-major order, one tensor after
// another. The flat view is the []float64 point gonum's optimize package works on;
// an Objective over a Layout hands its Func the tensors of the set, as views of the
// flat point, and the transforms (Grad, HVP, Hessian, Operator) take and return the
// same sets.
//
// The zero Layout has no tensors. A Layout is immutable and safe for concurrent use.
type Layout struct {
	shapes [][]int
	starts []int // starts[k] is where tensor k begins in the flat view; starts[len] = Dim
}

// NewLayout returns the layout of tensors of the given shapes, in that order. A
// negative dimension or more elements than an int counts is an error wrapping
// chainrules.ErrInvalidArgument; tensors with no elements are allowed.
func NewLayout(shapes ...[]int) (Layout, error) {
	l := Layout{shapes: make([][]int, len(shapes)), starts: make([]int, len(shapes)+1)}
	for k, s := range shapes {
		n, err := tensor.ShapeSize(s...)
		if err != nil {
			return Layout{}, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewLayout: tensor %d: %v", k, err)
		}
		if l.starts[k]+n < l.starts[k] {
			return Layout{}, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewLayout: the set has more elements than an int counts")
		}
		l.shapes[k] = slices.Clone(s)
		l.starts[k+1] = l.starts[k] + n
	}
	return l, nil
}

// LayoutOf returns the layout of the parameter set x: the shapes of its tensors. A
// nil or complex tensor is an error wrapping chainrules.ErrInvalidArgument.
func LayoutOf(x []*tensor.Dense) (Layout, error) {
	shapes := make([][]int, len(x))
	for k, xk := range x {
		if err := checkReal(xk, k); err != nil {
			return Layout{}, err
		}
		shapes[k] = xk.Shape()
	}
	return NewLayout(shapes...)
}

func checkReal(x *tensor.Dense, k int) error {
	if x == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "hvp: tensor %d of the parameter set is nil", k)
	}
	if x.DType() != tensor.Float64 {
		return cr.Errorf(cr.ErrInvalidArgument, "hvp: tensor %d of the parameter set is %s; a parameter set is float64", k, x.Describe())
	}
	return nil
}

// Len returns the number of tensors in the set.
func (l Layout) Len() int { return len(l.shapes) }

// Dim returns the length of the flat view: the number of elements of the set.
func (l Layout) Dim() int {
	if len(l.starts) == 0 {
		return 0
	}
	return l.starts[len(l.shapes)]
}

// Shape returns the shape of tensor k (a fresh slice).
func (l Layout) Shape(k int) []int { return slices.Clone(l.shapes[k]) }

// Span returns the range [lo, hi) of the flat view that holds tensor k.
func (l Layout) Span(k int) (lo, hi int) { return l.starts[k], l.starts[k+1] }

// Views returns the tensors of the set whose flat view is flat, sharing its storage:
// no element is copied, and writing to flat changes them (and the reverse). A flat
// of the wrong length is an error wrapping chainrules.ErrShapeMismatch.
func (l Layout) Views(flat []float64) ([]*tensor.Dense, error) {
	if len(flat) != l.Dim() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: flat view of length %d for a set of %d elements", len(flat), l.Dim())
	}
	out := make([]*tensor.Dense, len(l.shapes))
	for k, s := range l.shapes {
		lo, hi := l.Span(k)
		t, err := tensor.FromFloat64(flat[lo:hi:hi], s...)
		if err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

// Unflatten returns the tensors of the set whose flat view is flat, in fresh storage.
func (l Layout) Unflatten(flat []float64) ([]*tensor.Dense, error) {
	if len(flat) != l.Dim() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: flat view of length %d for a set of %d elements", len(flat), l.Dim())
	}
	return l.Views(slices.Clone(flat))
}

// Flatten returns the flat view of the set x in a fresh slice. x must have the
// layout's shapes (an error wrapping chainrules.ErrShapeMismatch otherwise) and be
// float64.
func (l Layout) Flatten(x []*tensor.Dense) ([]float64, error) {
	dst := make([]float64, l.Dim())
	if err := l.FlattenTo(dst, x); err != nil {
		return nil, err
	}
	return dst, nil
}

// FlattenTo stores the flat view of the set x in dst, which must have length Dim. A
// nil tensor in x stands for zeros.
func (l Layout) FlattenTo(dst []float64, x []*tensor.Dense) error {
	if len(dst) != l.Dim() {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: destination of length %d for a set of %d elements", len(dst), l.Dim())
	}
	if len(x) != len(l.shapes) {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: %d tensors for a set of %d", len(x), len(l.shapes))
	}
	for k, xk := range x {
		lo, hi := l.Span(k)
		if xk == nil {
			clear(dst[lo:hi])
			continue
		}
		if !slices.Equal(xk.Shape(), l.shapes[k]) {
			return cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: tensor %d is %s, the layout has shape %v", k, xk.Describe(), l.shapes[k])
		}
		if err := checkReal(xk, k); err != nil {
			return err
		}
		copy(dst[lo:hi], xk.Float64s())
	}
	return nil
}

// Equal reports whether l and m have the same shapes in the same order.
func (l Layout) Equal(m Layout) bool {
	return slices.EqualFunc(l.shapes, m.shapes, slices.Equal[[]int])
}

// String describes the layout, e.g. "[[2 16] [16] [16 1] [1]] (65 elements)".
func (l Layout) String() string { return fmt.Sprintf("%v (%d elements)", l.shapes, l.Dim()) }

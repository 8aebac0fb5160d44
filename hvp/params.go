package hvp

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Layout is the shape of a parameter set — a list of real tensors of any shapes,
// such as an MLP's weights and biases, in the spirit of JAX's pytrees — and defines
// its flat view: the elements of each tensor in row-major order, one tensor after
// another. The flat view is the []float64 point gonum's optimize package works on;
// an Objective over a Layout hands its Func the tensors of the set, as views of the
// flat point, and the transforms (Grad, HVP, Hessian, Operator) take and return the
// same sets.
//
// Each tensor of the set has a dtype, float64 or float32 (DType). The flat view is
// float64 whatever the dtypes: gonum works in double precision, and the set is
// converted at that boundary. A float64 tensor of the set is a view of the flat
// slice; a float32 tensor is the flat elements rounded to float32 (to nearest even),
// in storage of its own, and Flatten widens it back exactly. So an objective over a
// float32 set evaluates f, its gradient and its Hessian-vector products in float32,
// at the rounded point, while gonum's line searches and Newton iterations run in
// float64.
//
// The zero Layout has no tensors. A Layout is immutable and safe for concurrent use.
type Layout struct {
	shapes [][]int
	dtypes []tensor.DType // float64 or float32, one per tensor
	starts []int          // starts[k] is where tensor k begins in the flat view; starts[len] = Dim
}

// NewLayout returns the layout of float64 tensors of the given shapes, in that
// order. A negative dimension or more elements than an int counts is an error
// wrapping chainrules.ErrInvalidArgument; tensors with no elements are allowed.
func NewLayout(shapes ...[]int) (Layout, error) {
	return NewLayoutOf(tensor.Float64, shapes...)
}

// NewLayoutOf is NewLayout for tensors of dtype dt, float64 or float32 (another
// dtype is an error wrapping chainrules.ErrInvalidArgument).
func NewLayoutOf(dt tensor.DType, shapes ...[]int) (Layout, error) {
	if dt != tensor.Float64 && dt != tensor.Float32 {
		return Layout{}, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewLayoutOf: dtype %v; a parameter set is float64 or float32", dt)
	}
	dts := make([]tensor.DType, len(shapes))
	for k := range dts {
		dts[k] = dt
	}
	return newLayout(shapes, dts)
}

func newLayout(shapes [][]int, dts []tensor.DType) (Layout, error) {
	l := Layout{shapes: make([][]int, len(shapes)), dtypes: dts, starts: make([]int, len(shapes)+1)}
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

// LayoutOf returns the layout of the parameter set x: the shapes and dtypes of its
// tensors. A nil or complex tensor is an error wrapping
// chainrules.ErrInvalidArgument.
func LayoutOf(x []*tensor.Dense) (Layout, error) {
	shapes := make([][]int, len(x))
	dts := make([]tensor.DType, len(x))
	for k, xk := range x {
		if err := checkReal(xk, k); err != nil {
			return Layout{}, err
		}
		shapes[k], dts[k] = xk.Shape(), xk.DType()
	}
	return newLayout(shapes, dts)
}

func checkReal(x *tensor.Dense, k int) error {
	if x == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "hvp: tensor %d of the parameter set is nil", k)
	}
	if dt := x.DType(); dt != tensor.Float64 && dt != tensor.Float32 {
		return cr.Errorf(cr.ErrInvalidArgument, "hvp: tensor %d of the parameter set is %s; a parameter set is float64 or float32", k, x.Describe())
	}
	return nil
}

// DType returns the dtype of tensor k, float64 or float32.
func (l Layout) DType(k int) tensor.DType { return l.dtypes[k] }

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

// Views returns the tensors of the set whose flat view is flat. Its float64 tensors
// share flat's storage: no element is copied, and writing to flat changes them (and
// the reverse). Its float32 tensors are flat's elements rounded to float32, in
// storage of their own (the conversion at gonum's boundary). A flat of the wrong
// length is an error wrapping chainrules.ErrShapeMismatch.
func (l Layout) Views(flat []float64) ([]*tensor.Dense, error) {
	out, _, err := l.views(flat)
	return out, err
}

// views is Views, which also returns the float32 tensors among them (copies): their
// storage is their own, from the module's buffer pool (tensor.AsType), for a caller
// done with them to hand back (tensor.Space.Recycle).
func (l Layout) views(flat []float64) (out, copies []*tensor.Dense, err error) {
	if len(flat) != l.Dim() {
		return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.Layout: flat view of length %d for a set of %d elements", len(flat), l.Dim())
	}
	out = make([]*tensor.Dense, len(l.shapes))
	for k, s := range l.shapes {
		lo, hi := l.Span(k)
		var t *tensor.Dense
		if l.dtypes[k] == tensor.Float32 {
			wide, err := tensor.FromFloat64(flat[lo:hi:hi], s...)
			if err != nil {
				return nil, nil, err
			}
			if t, err = tensor.AsType(wide, tensor.Float32); err != nil {
				return nil, nil, err
			}
			copies = append(copies, t)
		} else if t, err = tensor.FromFloat64(flat[lo:hi:hi], s...); err != nil {
			return nil, nil, err
		}
		out[k] = t
	}
	return out, copies, nil
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
// real: float32 elements are widened to float64, exactly.
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
		if xk.DType() == tensor.Float32 {
			for i, v := range xk.Float32s() {
				dst[lo+i] = float64(v)
			}
			continue
		}
		copy(dst[lo:hi], xk.Float64s())
	}
	return nil
}

// Equal reports whether l and m have the same shapes and dtypes in the same order.
func (l Layout) Equal(m Layout) bool {
	return slices.EqualFunc(l.shapes, m.shapes, slices.Equal[[]int]) && slices.Equal(l.dtypes, m.dtypes)
}

// String describes the layout, e.g. "[[2 16] [16] [16 1] [1]] (65 elements)" for a
// float64 set, "float32 [[2 16] [16]] (48 elements)" for a float32 one and the
// dtype of every tensor for a mixed one.
func (l Layout) String() string {
	switch {
	case !slices.ContainsFunc(l.dtypes, func(d tensor.DType) bool { return d != tensor.Float64 }):
		return fmt.Sprintf("%v (%d elements)", l.shapes, l.Dim())
	case !slices.ContainsFunc(l.dtypes, func(d tensor.DType) bool { return d != tensor.Float32 }):
		return fmt.Sprintf("float32 %v (%d elements)", l.shapes, l.Dim())
	}
	return fmt.Sprintf("%v %v (%d elements)", l.dtypes, l.shapes, l.Dim())
}

package permute

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// layout is a linear map between tensors that only rearranges (or, for
// BroadcastTo, repeats) elements: fwd is the map L, adj its adjoint L^* under the
// real inner product. Both return views where the strides allow.
type layout struct {
	fwd func(*tensor.Dense) (*tensor.Dense, error)
	adj func(*tensor.Dense) (*tensor.Dense, error)
}

// op is a layout op family member: plan computes the layout for an input shape or
// reports why the parameters do not fit it.
type op struct {
	name string
	plan func(shape []int) (layout, error)
}

func (o *op) Name() string { return o.name }

func (o *op) NumOutputs() int { return 1 }

// Apply computes y = L(x), a view of x when possible, into ys[0] and returns the
// rule of L.
func (o *op) Apply(in []cr.NodeID, x, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, ys)
	}
	if err := opkit.CheckApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	l, err := o.plan(x[0].Shape())
	if err != nil {
		return nil, err
	}
	y, err := l.fwd(x[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.name, err)
	}
	// L is linear, so xbar = L^* ybar, ydot = L xdot and xbardot = L^* ybardot. The
	// cotangents may be views of ybar: the engine never writes into a value it did
	// not allocate itself.
	ys[0] = y
	return cr.UnaryLinearRule(in[0], named(o.name, "tangent", l.fwd), named(o.name, "pullback", l.adj)), nil
}

// named wraps the errors of f with the op name and the phase.
func named(name, phase string, f func(*tensor.Dense) (*tensor.Dense, error)) func(*tensor.Dense) (*tensor.Dense, error) {
	return func(t *tensor.Dense) (*tensor.Dense, error) {
		v, err := f(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, phase, err)
		}
		return v, nil
	}
}

// permutation builds the layout of Permute(perm) after checking perm.
func permutation(name string, perm []int, rank int) (layout, error) {
	if len(perm) != rank {
		return layout{}, cr.Errorf(cr.ErrInvalidArgument, "%s: %d axes %v for rank %d", name, len(perm), perm, rank)
	}
	p := make([]int, rank)
	inv := make([]int, rank)
	seen := make([]bool, rank)
	for k, a := range perm {
		a, err := opkit.Axis(name, a, rank)
		if err != nil {
			return layout{}, err
		}
		if seen[a] {
			return layout{}, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d repeated in %v", name, a, perm)
		}
		seen[a] = true
		p[k] = a
		inv[a] = k
	}
	return layout{
		fwd: func(t *tensor.Dense) (*tensor.Dense, error) { return t.Permute(p...) },
		adj: func(t *tensor.Dense) (*tensor.Dense, error) { return t.Permute(inv...) },
	}, nil
}

// reshaping builds the layout of a reshape from shape `from` to `to` (both fully
// known): the adjoint of a reshape is the reverse reshape.
func reshaping(from, to []int) layout {
	from, to = slices.Clone(from), slices.Clone(to)
	return layout{
		fwd: func(t *tensor.Dense) (*tensor.Dense, error) { return t.Reshape(to...) },
		adj: func(t *tensor.Dense) (*tensor.Dense, error) { return t.Reshape(from...) },
	}
}

// PermuteOp returns the op y = Permute(x, axes...): axis k of y is axis axes[k] of
// x, y[i] = x[i'] with i'[axes[k]] = i[k]. axes must be a permutation of the axes of
// x; negative axes count from the end. The output is a view of x.
//
// Rules: xbar = Permute(ybar, inverse(axes)), ydot = Permute(xdot, axes).
func PermuteOp(axes ...int) cr.Op[*tensor.Dense] {
	axes = slices.Clone(axes)
	return &op{name: "permute", plan: func(shape []int) (layout, error) {
		return permutation("permute", axes, len(shape))
	}}
}

// Permute is PermuteOp without a tape.
func Permute(x *tensor.Dense, axes ...int) (*tensor.Dense, error) {
	return cr.Eval(PermuteOp(axes...), x)
}

// TransposeOp returns the op that swaps axes i and j of x (negative axes count from
// the end): the view y = Permute(x, p) with p the identity but p[i] = j, p[j] = i.
// The swap is its own inverse, so xbar = Transpose(ybar, i, j).
func TransposeOp(i, j int) cr.Op[*tensor.Dense] {
	return &op{name: "transpose", plan: func(shape []int) (layout, error) {
		r := len(shape)
		a, err := opkit.Axis("transpose", i, r)
		if err != nil {
			return layout{}, err
		}
		b, err := opkit.Axis("transpose", j, r)
		if err != nil {
			return layout{}, err
		}
		p := make([]int, r)
		for k := range p {
			p[k] = k
		}
		p[a], p[b] = b, a
		return permutation("transpose", p, r)
	}}
}

// Transpose is TransposeOp without a tape.
func Transpose(x *tensor.Dense, i, j int) (*tensor.Dense, error) {
	return cr.Eval(TransposeOp(i, j), x)
}

// MoveAxisOp returns NumPy's moveaxis: the axes src[k] of x move to positions
// dst[k] of y, and the other axes keep their relative order. src and dst have the
// same length, no repeats, and negative entries count from the end. It is a
// permutation, so its rules are those of Permute.
func MoveAxisOp(src, dst []int) cr.Op[*tensor.Dense] {
	src, dst = slices.Clone(src), slices.Clone(dst)
	return &op{name: "moveaxis", plan: func(shape []int) (layout, error) {
		r := len(shape)
		if len(src) != len(dst) {
			return layout{}, cr.Errorf(cr.ErrInvalidArgument, "moveaxis: source %v and destination %v differ in length", src, dst)
		}
		p := make([]int, r)
		for k := range p {
			p[k] = -1
		}
		moved := make([]bool, r)
		for k := range src {
			s, err := opkit.Axis("moveaxis", src[k], r)
			if err != nil {
				return layout{}, err
			}
			d, err := opkit.Axis("moveaxis", dst[k], r)
			if err != nil {
				return layout{}, err
			}
			if moved[s] {
				return layout{}, cr.Errorf(cr.ErrInvalidArgument, "moveaxis: source axis %d repeated in %v", s, src)
			}
			if p[d] >= 0 {
				return layout{}, cr.Errorf(cr.ErrInvalidArgument, "moveaxis: destination axis %d repeated in %v", d, dst)
			}
			moved[s] = true
			p[d] = s
		}
		next := 0
		for k := range p {
			if p[k] >= 0 {
				continue
			}
			for moved[next] {
				next++
			}
			p[k] = next
			next++
		}
		return permutation("moveaxis", p, r)
	}}
}

// MoveAxis is MoveAxisOp without a tape.
func MoveAxis(x *tensor.Dense, src, dst []int) (*tensor.Dense, error) {
	return cr.Eval(MoveAxisOp(src, dst), x)
}

// ReshapeOp returns the op y = Reshape(x, shape...): the elements of x in row-major
// order laid out in the given shape, one dim of which may be -1 (inferred). It is
// a view of x when the strides allow and a copy otherwise (tensor.Dense.Reshape).
//
// Rules: xbar = Reshape(ybar, shape of x), ydot = Reshape(xdot, shape).
func ReshapeOp(shape ...int) cr.Op[*tensor.Dense] {
	shape = slices.Clone(shape)
	return &op{name: "reshape", plan: func(from []int) (layout, error) {
		to, err := tensor.InferShape(from, shape...)
		if err != nil {
			return layout{}, err
		}
		return reshaping(from, to), nil
	}}
}

// Reshape is ReshapeOp without a tape.
func Reshape(x *tensor.Dense, shape ...int) (*tensor.Dense, error) {
	return cr.Eval(ReshapeOp(shape...), x)
}

// SqueezeOp returns the op that removes axes of size 1: the given axes (negative
// counting from the end), each of which must have size 1, or with no axes every
// axis of size 1. It is a reshape, and so are its rules.
func SqueezeOp(axes ...int) cr.Op[*tensor.Dense] {
	axes = slices.Clone(axes)
	return &op{name: "squeeze", plan: func(from []int) (layout, error) {
		r := len(from)
		drop := make([]bool, r)
		if len(axes) == 0 {
			for k, d := range from {
				drop[k] = d == 1
			}
		}
		for _, a := range axes {
			k, err := opkit.Axis("squeeze", a, r)
			if err != nil {
				return layout{}, err
			}
			if drop[k] {
				return layout{}, cr.Errorf(cr.ErrInvalidArgument, "squeeze: axis %d repeated in %v", k, axes)
			}
			if from[k] != 1 {
				return layout{}, cr.Errorf(cr.ErrInvalidArgument, "squeeze: axis %d has size %d, not 1", k, from[k])
			}
			drop[k] = true
		}
		to := make([]int, 0, r)
		for k, d := range from {
			if !drop[k] {
				to = append(to, d)
			}
		}
		return reshaping(from, to), nil
	}}
}

// Squeeze is SqueezeOp without a tape.
func Squeeze(x *tensor.Dense, axes ...int) (*tensor.Dense, error) {
	return cr.Eval(SqueezeOp(axes...), x)
}

// UnsqueezeOp returns the op that inserts an axis of size 1 at position axis of the
// output, 0 <= axis <= rank (negative axes count from the end of the output, -1
// appending). It is a reshape, and so are its rules.
func UnsqueezeOp(axis int) cr.Op[*tensor.Dense] {
	return &op{name: "unsqueeze", plan: func(from []int) (layout, error) {
		k, err := opkit.Axis("unsqueeze", axis, len(from)+1)
		if err != nil {
			return layout{}, err
		}
		return reshaping(from, slices.Insert(slices.Clone(from), k, 1)), nil
	}}
}

// Unsqueeze is UnsqueezeOp without a tape.
func Unsqueeze(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(UnsqueezeOp(axis), x)
}

// BroadcastToOp returns the op y = BroadcastTo(x, shape...) under NumPy's rules (x's
// dims aligned with the trailing dims of shape, each equal or 1). The output is a
// view that repeats elements with stride 0.
//
// Rules: each x_j feeds every y_i it broadcasts to, so xbar_j = sum of ybar_i over
// those i, which is tensor.SumTo(ybar, shape of x); ydot = BroadcastTo(xdot, shape).
func BroadcastToOp(shape ...int) cr.Op[*tensor.Dense] {
	shape = slices.Clone(shape)
	return &op{name: "broadcast_to", plan: func(from []int) (layout, error) {
		if _, err := tensor.ShapeSize(shape...); err != nil {
			return layout{}, fmt.Errorf("broadcast_to: %w", err)
		}
		if len(from) > len(shape) {
			return layout{}, cr.Errorf(cr.ErrShapeMismatch, "broadcast_to: cannot broadcast %v to %v", from, shape)
		}
		for k := range from {
			if d := from[len(from)-1-k]; d != 1 && d != shape[len(shape)-1-k] {
				return layout{}, cr.Errorf(cr.ErrShapeMismatch, "broadcast_to: cannot broadcast %v to %v", from, shape)
			}
		}
		orig := slices.Clone(from)
		return layout{
			fwd: func(t *tensor.Dense) (*tensor.Dense, error) { return t.BroadcastTo(shape...) },
			adj: func(t *tensor.Dense) (*tensor.Dense, error) { return tensor.SumTo(t, orig) },
		}, nil
	}}
}

// BroadcastTo is BroadcastToOp without a tape.
func BroadcastTo(x *tensor.Dense, shape ...int) (*tensor.Dense, error) {
	return cr.Eval(BroadcastToOp(shape...), x)
}

package index

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// End stands for "to the end of the axis" as a Range's Stop, like an omitted stop in
// Python's x[a:].
const End = math.MaxInt

// Range selects start, start+step, ... below stop along one axis, with Python's
// rules: a negative Start or Stop counts from the end of the axis (-1 is the last
// element), and bounds beyond the axis are clamped to it, so Range{Start: 1, Stop:
// End} is x[1:] and Range{Stop: -1} is x[:-1]. A zero Step means 1. Negative steps
// are not supported (an error): reverse with Flip, then slice.
type Range struct {
	Start, Stop, Step int
}

// All is the whole axis, x[:].
var All = Range{Stop: End}

// resolve returns the clamped start, the step and the number of elements the range
// selects on an axis of size n.
func (r Range) resolve(name string, axis, n int) (start, step, count int, err error) {
	step = r.Step
	if step == 0 {
		step = 1
	}
	if step < 0 {
		return 0, 0, 0, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: step %d is negative (reverse with Flip)", name, axis, step)
	}
	clamp := func(i int) int {
		if i < 0 {
			i = max(i+n, 0)
		}
		return min(i, n)
	}
	start, stop := clamp(r.Start), clamp(r.Stop)
	if stop > start {
		// Not (stop-start+step-1)/step, which overflows for a huge step.
		count = (stop-start-1)/step + 1
	}
	return start, step, count, nil
}

// viewOp is an op whose output is a strided view of its one input, made
// contiguous: the "slice", "narrow", "select", "diagonal" and "flip" families. view
// returns that view of an input of the given shape, or an error if the op's
// parameters do not fit the shape.
type viewOp struct {
	name string
	view func(shape []int) (piece, error)
}

func (o viewOp) Name() string  { return o.name }
func (viewOp) NumOutputs() int { return 1 }

func (o viewOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	if err := opkit.CheckInputs(o.name, x, 1); err != nil {
		return nil, err
	}
	p, err := o.view(x[0].Shape())
	if err != nil {
		return nil, err
	}
	if prod(p.shape) == 0 {
		p.srcOff = 0 // an empty view reads nothing: its offset may lie past x
	}
	p.dstSt = rowMajor(p.shape)
	return newLinear(o.name, x, p.shape).withPieces([]piece{p}).run(in, x, y)
}

// SliceOp returns the op x[r_0, r_1, ...]: ranges[k] applies to axis k and the axes
// after the last range are kept whole. With start s_k, step t_k and count m_k per
// axis,
//
//	y[i_0, ..., i_{r-1}] = x[s_0 + t_0 i_0, ..., s_{r-1} + t_{r-1} i_{r-1}],
//
// an output of shape [m_0, ..., m_{r-1}]. The op is linear: the pullback scatters
// ybar into a zero tensor shaped like x (xbar = S^T ybar), the tangent is the same
// slice of xdot, and the second-order term vanishes. More ranges than axes or a
// negative step is an error wrapping ErrInvalidArgument.
func SliceOp(ranges ...Range) cr.Op[*tensor.Dense] {
	ranges = slices.Clone(ranges)
	return viewOp{name: "slice", view: func(shape []int) (piece, error) {
		if len(ranges) > len(shape) {
			return piece{}, cr.Errorf(cr.ErrInvalidArgument, "slice: %d ranges for a tensor of rank %d", len(ranges), len(shape))
		}
		rs := rowMajor(shape)
		p := piece{shape: slices.Clone(shape), srcSt: slices.Clone(rs)}
		for k, r := range ranges {
			start, step, count, err := r.resolve("slice", k, shape[k])
			if err != nil {
				return piece{}, err
			}
			p.shape[k] = count
			p.srcOff += start * rs[k]
			p.srcSt[k] = step * rs[k]
		}
		return p, nil
	}}
}

// Slice returns x[ranges...] as a fresh tensor (see SliceOp).
func Slice(x *tensor.Dense, ranges ...Range) (*tensor.Dense, error) {
	return cr.Eval(SliceOp(ranges...), x)
}

// NarrowOp returns the op y = x[..., start:start+length, ...] along axis (PyTorch's
// narrow): y keeps x's rank. A negative axis or start counts from the end. It is
// Slice on one axis, with the same rules (pullback: ybar placed into zeros). A start
// out of range, a negative length or start+length beyond the axis is an error
// wrapping ErrInvalidArgument.
func NarrowOp(axis, start, length int) cr.Op[*tensor.Dense] {
	return viewOp{name: "narrow", view: func(shape []int) (piece, error) {
		a, err := opkit.Axis("narrow", axis, len(shape))
		if err != nil {
			return piece{}, err
		}
		n, s := shape[a], start
		if s < 0 {
			s += n
		}
		if s < 0 || s > n || length < 0 || length > n-s {
			return piece{}, cr.Errorf(cr.ErrInvalidArgument, "narrow: axis %d: start %d, length %d out of range for size %d", axis, start, length, n)
		}
		return axisRange(shape, a, s, length), nil
	}}
}

// Narrow returns x narrowed to [start, start+length) along axis (see NarrowOp).
func Narrow(x *tensor.Dense, axis, start, length int) (*tensor.Dense, error) {
	return cr.Eval(NarrowOp(axis, start, length), x)
}

// axisRange is the piece that reads [start, start+length) along axis a of a
// row-major tensor of the given shape.
func axisRange(shape []int, a, start, length int) piece {
	rs := rowMajor(shape)
	p := piece{shape: slices.Clone(shape), srcSt: rs, srcOff: start * rs[a]}
	p.shape[a] = length
	return p
}

// SelectOp returns the op y = x[..., index, ...] that drops axis at index (PyTorch's
// select; NumPy's x[:, i]): y has rank r-1. A negative axis or index counts from the
// end. Pullback: ybar placed in the slab index of a zero tensor shaped like x;
// tangent: the same slab of xdot. An index out of range is an error wrapping
// ErrInvalidArgument.
func SelectOp(axis, index int) cr.Op[*tensor.Dense] {
	return viewOp{name: "select", view: func(shape []int) (piece, error) {
		a, err := opkit.Axis("select", axis, len(shape))
		if err != nil {
			return piece{}, err
		}
		i, err := normIndex("select", axis, index, shape[a])
		if err != nil {
			return piece{}, err
		}
		rs := rowMajor(shape)
		return piece{
			shape:  slices.Delete(slices.Clone(shape), a, a+1),
			srcSt:  slices.Delete(slices.Clone(rs), a, a+1),
			srcOff: i * rs[a],
		}, nil
	}}
}

// Select returns x with axis dropped at index (see SelectOp).
func Select(x *tensor.Dense, axis, index int) (*tensor.Dense, error) {
	return cr.Eval(SelectOp(axis, index), x)
}

// DiagonalOp returns the op taking the diagonal of x over axes axis1 and axis2, with
// PyTorch's conventions: those two axes are removed and the diagonal becomes the
// last axis,
//
//	y[..., i] = x[..., i + max(-offset, 0) on axis1, ..., i + max(offset, 0) on axis2, ...],
//
// of length max(0, min(n1 - max(-offset, 0), n2 - max(offset, 0))) (an offset past
// the corner gives an empty diagonal). offset > 0 is above the main diagonal.
// Pullback: ybar written onto that diagonal of a zero tensor shaped like x (PyTorch's
// diag_embed); tangent: the diagonal of xdot. Equal axes or an axis out of range is
// an error wrapping ErrInvalidArgument; negative axes count from the end.
func DiagonalOp(offset, axis1, axis2 int) cr.Op[*tensor.Dense] {
	const name = "diagonal"
	return viewOp{name: name, view: func(shape []int) (piece, error) {
		a1, err := opkit.Axis(name, axis1, len(shape))
		if err != nil {
			return piece{}, err
		}
		a2, err := opkit.Axis(name, axis2, len(shape))
		if err != nil {
			return piece{}, err
		}
		if a1 == a2 {
			return piece{}, cr.Errorf(cr.ErrInvalidArgument, "%s: axis1 %d and axis2 %d are the same axis", name, axis1, axis2)
		}
		rs := rowMajor(shape)
		// The diagonal starts at (r1, r2) on (axis1, axis2); an offset past the
		// corner (compared without negating it, which could overflow) leaves it
		// empty.
		n1, n2 := shape[a1], shape[a2]
		r1, r2, length := 0, 0, 0
		switch {
		case offset >= 0 && offset < n2:
			r2 = offset
			length = min(n1, n2-r2)
		case offset < 0 && offset > -n1:
			r1 = -offset
			length = min(n1-r1, n2)
		}
		var p piece
		for k, d := range shape {
			if k != a1 && k != a2 {
				p.shape = append(p.shape, d)
				p.srcSt = append(p.srcSt, rs[k])
			}
		}
		p.shape = append(p.shape, length)
		p.srcSt = append(p.srcSt, rs[a1]+rs[a2])
		if length > 0 {
			p.srcOff = r1*rs[a1] + r2*rs[a2]
		}
		return p, nil
	}}
}

// Diagonal returns the diagonal of x over axis1 and axis2 (see DiagonalOp).
func Diagonal(x *tensor.Dense, offset, axis1, axis2 int) (*tensor.Dense, error) {
	return cr.Eval(DiagonalOp(offset, axis1, axis2), x)
}

// FlipOp returns the op reversing x along each of axes (negative axes count from the
// end): y[..., i, ...] = x[..., n-1-i, ...]. A flip is its own adjoint: pullback
// flips ybar, the tangent flips xdot. A repeated axis or an axis out of range is an
// error wrapping ErrInvalidArgument.
func FlipOp(axes ...int) cr.Op[*tensor.Dense] {
	axes = slices.Clone(axes)
	return viewOp{name: "flip", view: func(shape []int) (piece, error) {
		rs := rowMajor(shape)
		p := piece{shape: slices.Clone(shape), srcSt: slices.Clone(rs)}
		seen := make([]bool, len(shape))
		for _, ax := range axes {
			a, err := opkit.Axis("flip", ax, len(shape))
			if err != nil {
				return piece{}, err
			}
			if seen[a] {
				return piece{}, cr.Errorf(cr.ErrInvalidArgument, "flip: axis %d appears twice in %v", ax, axes)
			}
			seen[a] = true
			p.srcSt[a] = -rs[a]
			if shape[a] > 0 {
				p.srcOff += (shape[a] - 1) * rs[a]
			}
		}
		return p, nil
	}}
}

// Flip returns x reversed along axes (see FlipOp).
func Flip(x *tensor.Dense, axes ...int) (*tensor.Dense, error) { return cr.Eval(FlipOp(axes...), x) }

// rollOp is the "roll" family.
type rollOp struct{ shifts, axes []int }

// RollOp returns the op rolling x by shifts[k] along axes[k] (PyTorch's roll with
// dims): elements shifted past the end come back at the start,
//
//	y[..., (i + s) mod n, ...] = x[..., i, ...].
//
// Shifts may be negative or exceed n; shifts of a repeated axis add up. A roll is
// orthogonal, so its adjoint is the inverse roll: pullback rolls ybar by -shifts,
// the tangent rolls xdot by shifts. Different lengths of shifts and axes, or an axis
// out of range, is an error wrapping ErrInvalidArgument.
func RollOp(shifts, axes []int) cr.Op[*tensor.Dense] {
	return rollOp{shifts: slices.Clone(shifts), axes: slices.Clone(axes)}
}

// Roll returns x rolled by shifts along axes (see RollOp).
func Roll(x *tensor.Dense, shifts, axes []int) (*tensor.Dense, error) {
	return cr.Eval(RollOp(shifts, axes), x)
}

func (rollOp) Name() string    { return "roll" }
func (rollOp) NumOutputs() int { return 1 }

func (o rollOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "roll"
	if err := opkit.CheckInputs(name, x, 1); err != nil {
		return nil, err
	}
	if len(o.shifts) != len(o.axes) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d shifts for %d axes", name, len(o.shifts), len(o.axes))
	}
	shape := x[0].Shape()
	shift := make([]int, len(shape))
	for k, ax := range o.axes {
		a, err := opkit.Axis(name, ax, len(shape))
		if err != nil {
			return nil, err
		}
		if n := shape[a]; n > 0 {
			shift[a] = ((shift[a]+o.shifts[k]%n)%n + n) % n
		}
	}
	rs := rowMajor(shape)
	// Each rolled axis splits into two blocks, [0, n-s) -> [s, n) and
	// [n-s, n) -> [0, s); the pieces are the products of those blocks.
	ps := []piece{{shape: slices.Clone(shape), srcSt: rs, dstSt: rs}}
	for a, s := range shift {
		if s == 0 {
			continue
		}
		n := shape[a]
		next := make([]piece, 0, 2*len(ps))
		for _, p := range ps {
			lo, hi := p, p
			lo.shape, hi.shape = slices.Clone(p.shape), slices.Clone(p.shape)
			lo.shape[a], lo.dstOff = n-s, p.dstOff+s*rs[a]
			hi.shape[a], hi.srcOff = s, p.srcOff+(n-s)*rs[a]
			next = append(next, lo, hi)
		}
		ps = next
	}
	return newLinear(name, x, shape).withPieces(ps).run(in, x, y)
}

// padOp is the "pad" family.
type padOp struct{ widths [][2]int }

// PadOp returns the op padding x with zeros: widths[k] = {before, after} adds that
// many zeros at the start and end of axis k, one pair per axis of x (NumPy's
// pad_width order, axis 0 first),
//
//	y[i_0 + b_0, ..., i_{r-1} + b_{r-1}] = x[i_0, ..., i_{r-1}], zero elsewhere.
//
// Pullback: the interior slice of ybar; tangent: xdot padded with zeros. A number of
// pairs other than the rank or a negative width is an error wrapping
// ErrInvalidArgument.
func PadOp(widths ...[2]int) cr.Op[*tensor.Dense] { return padOp{widths: slices.Clone(widths)} }

// Pad returns x padded with zeros (see PadOp).
func Pad(x *tensor.Dense, widths ...[2]int) (*tensor.Dense, error) {
	return cr.Eval(PadOp(widths...), x)
}

func (padOp) Name() string    { return "pad" }
func (padOp) NumOutputs() int { return 1 }

func (o padOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "pad"
	if err := opkit.CheckInputs(name, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	if len(o.widths) != len(shape) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d width pairs for a tensor of rank %d", name, len(o.widths), len(shape))
	}
	out := slices.Clone(shape)
	for k, w := range o.widths {
		if w[0] < 0 || w[1] < 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: negative width %v", name, k, w)
		}
		if w[0] > math.MaxInt-out[k] || w[1] > math.MaxInt-out[k]-w[0] {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: widths %v overflow", name, k, w)
		}
		out[k] += w[0] + w[1]
	}
	if _, ok := checkedProd(out); !ok {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: padded shape %v has too many elements", name, out)
	}
	if err := checkOut(name, x, out); err != nil {
		return nil, err
	}
	ro := rowMajor(out)
	p := piece{shape: slices.Clone(shape), srcSt: rowMajor(shape), dstSt: ro}
	if prod(shape) > 0 {
		for k, w := range o.widths {
			p.dstOff += w[0] * ro[k]
		}
	}
	return newLinear(name, x, out).withPieces([]piece{p}).run(in, x, y)
}

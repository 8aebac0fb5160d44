package index

import (
	"fmt"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// joinOp is the "concat" family, or with stack set the "stack" family: a stack is
// the concatenation of its inputs, each seen with a new axis of size 1 at axis.
type joinOp struct {
	axis  int
	stack bool
}

// ConcatOp returns the op joining its inputs x_1, ..., x_n end to end along axis
// (a negative axis counts from the end): every input has the same rank and the same
// dims off axis, and the output's axis has size sum_k n_k,
//
//	y[..., o_k + i, ...] = x_k[..., i, ...],   o_k = n_1 + ... + n_{k-1}.
//
// Mixed dtypes promote to complex128. Pullback: xbar_k = ybar[..., o_k:o_k+n_k, ...]
// (its real part for a real input); tangent: the concatenation of the xdot_k.
// No input, different ranks or mismatched dims is an error wrapping
// ErrInvalidArgument or ErrShapeMismatch.
func ConcatOp(axis int) cr.Op[*tensor.Dense] { return joinOp{axis: axis} }

// Concat joins xs along axis (see ConcatOp).
func Concat(axis int, xs ...*tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(ConcatOp(axis), xs...)
}

// StackOp returns the op stacking its n inputs, all of the same shape, along a new
// axis of size n inserted at position axis (0 <= axis <= rank; negative counts from
// rank+1, so -1 appends a last axis):
//
//	y[..., k, ...] = x_k[...].
//
// Mixed dtypes promote to complex128. Pullback: xbar_k = ybar[..., k, ...] (its real
// part for a real input); tangent: the stack of the xdot_k. No input or different
// shapes is an error wrapping ErrInvalidArgument or ErrShapeMismatch.
func StackOp(axis int) cr.Op[*tensor.Dense] { return joinOp{axis: axis, stack: true} }

// Stack stacks xs along a new axis (see StackOp).
func Stack(axis int, xs ...*tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(StackOp(axis), xs...)
}

func (o joinOp) Name() string {
	if o.stack {
		return "stack"
	}
	return "concat"
}

func (joinOp) NumOutputs() int { return 1 }

func (o joinOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	name := o.Name()
	if err := opkit.CheckInputs(name, x, -1); err != nil {
		return nil, err
	}
	rank := x[0].Rank()
	if o.stack {
		rank++ // the new axis
	}
	a, err := opkit.Axis(name, o.axis, rank)
	if err != nil {
		return nil, err
	}
	var shapes [][]int
	var out []int
	if o.stack {
		shapes, out, err = stackShapes(name, x, a)
	} else {
		shapes, out, err = concatShapes(name, x, a, o.axis)
	}
	if err != nil {
		return nil, err
	}
	if err := checkOut(name, x, out); err != nil {
		return nil, err
	}
	ro := rowMajor(out)
	ps := make([]piece, len(x))
	at := 0
	for k, s := range shapes {
		ps[k] = piece{input: k, shape: slices.Clone(s), srcSt: rowMajor(s), dstSt: ro}
		if prod(s) > 0 {
			ps[k].dstOff = at * ro[a]
		}
		at += s[a]
	}
	return newLinear(name, x, out).withPieces(ps).run(in, x, y)
}

// concatShapes checks that the inputs of a concatenation along axis a (axis as the
// caller gave it) have the same rank and the same dims off a, and returns their
// shapes and the output's.
func concatShapes(name string, x []*tensor.Dense, a, axis int) (shapes [][]int, out []int, err error) {
	first := x[0].Shape()
	out = slices.Clone(first)
	out[a] = 0
	shapes = make([][]int, len(x))
	for k, v := range x {
		s := v.Shape()
		if len(s) != len(first) {
			return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d has rank %d, input 0 has rank %d", name, k, len(s), len(first))
		}
		for j, d := range s {
			if j != a && d != first[j] {
				return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d is %v, input 0 is %v: they differ on axis %d, not only on the concatenation axis %d", name, k, s, first, j, axis)
			}
		}
		n, ok := addSize(out[a], s[a])
		if !ok {
			return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: the result is too large: its concatenation axis %d has more elements than an int can count", name, axis)
		}
		out[a] = n
		shapes[k] = s
	}
	return shapes, out, nil
}

// stackShapes checks that the inputs of a stack along the new axis a have the same
// shape, and returns that shape with a size-1 axis inserted at a, once per input
// (their shapes as blocks of the output), and the output's shape.
func stackShapes(name string, x []*tensor.Dense, a int) (shapes [][]int, out []int, err error) {
	first := x[0].Shape()
	for k, v := range x {
		if !slices.Equal(v.Shape(), first) {
			return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d is %v, input 0 is %v", name, k, v.Shape(), first)
		}
	}
	block := slices.Insert(slices.Clone(first), a, 1)
	shapes = make([][]int, len(x))
	for k := range shapes {
		shapes[k] = block
	}
	return shapes, slices.Insert(slices.Clone(first), a, len(x)), nil
}

// addSize returns a+b for sizes a, b >= 0, and false if the sum overflows int.
func addSize(a, b int) (int, bool) {
	if a > math.MaxInt-b {
		return 0, false
	}
	return a + b, true
}

// checkOut returns an error wrapping chainrules.ErrInvalidArgument unless the result
// of op name on inputs x, of shape out, can be allocated: its size must not overflow
// (tensor.ShapeSize) and must fit in memory (inputs can be broadcast views of any
// size).
func checkOut(name string, x []*tensor.Dense, out []int) error {
	dt := tensor.Float64
	for _, v := range x {
		if v.DType() == tensor.Complex128 {
			dt = tensor.Complex128
		}
	}
	if err := tensor.CheckAlloc(dt, out...); err != nil {
		return fmt.Errorf("%s: the result is too large: %w", name, err)
	}
	return nil
}

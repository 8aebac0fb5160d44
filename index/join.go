package index

import (
	"fmt"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// concatOp is the "concat" family.
type concatOp struct{ axis int }

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
func ConcatOp(axis int) cr.Op[*tensor.Dense] { return concatOp{axis: axis} }

// Concat joins xs along axis (see ConcatOp).
func Concat(axis int, xs ...*tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(ConcatOp(axis), xs...)
}

func (concatOp) Name() string { return "concat" }

func (o concatOp) Apply(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	const name = "concat"
	if err := tensor.CheckInputs(name, x, -1); err != nil {
		return nil, nil, err
	}
	first := x[0].Shape()
	a, err := tensor.Axis(name, o.axis, len(first))
	if err != nil {
		return nil, nil, err
	}
	out := slices.Clone(first)
	out[a] = 0
	for k, v := range x {
		s := v.Shape()
		if len(s) != len(first) {
			return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d has rank %d, input 0 has rank %d", name, k, len(s), len(first))
		}
		for j, d := range s {
			if j != a && d != first[j] {
				return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d is %v, input 0 is %v: they differ on axis %d, not only on the concatenation axis %d", name, k, s, first, j, o.axis)
			}
		}
		n, ok := addSize(out[a], s[a])
		if !ok {
			return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: the result is too large: its concatenation axis %d has more elements than an int can count", name, o.axis)
		}
		out[a] = n
	}
	if err := checkOut(name, x, out); err != nil {
		return nil, nil, err
	}
	ro := rowMajor(out)
	ps := make([]piece, len(x))
	at := 0
	for k, v := range x {
		s := v.Shape()
		ps[k] = piece{input: k, shape: slices.Clone(s), srcSt: rowMajor(s), dstSt: ro}
		if prod(s) > 0 {
			ps[k].dstOff = at * ro[a]
		}
		at += s[a]
	}
	return newLinear(name, x, out).withPieces(ps).run(in, x)
}

// stackOp is the "stack" family.
type stackOp struct{ axis int }

// StackOp returns the op stacking its n inputs, all of the same shape, along a new
// axis of size n inserted at position axis (0 <= axis <= rank; negative counts from
// rank+1, so -1 appends a last axis):
//
//	y[..., k, ...] = x_k[...].
//
// Mixed dtypes promote to complex128. Pullback: xbar_k = ybar[..., k, ...] (its real
// part for a real input); tangent: the stack of the xdot_k. No input or different
// shapes is an error wrapping ErrInvalidArgument or ErrShapeMismatch.
func StackOp(axis int) cr.Op[*tensor.Dense] { return stackOp{axis: axis} }

// Stack stacks xs along a new axis (see StackOp).
func Stack(axis int, xs ...*tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(StackOp(axis), xs...)
}

func (stackOp) Name() string { return "stack" }

func (o stackOp) Apply(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	const name = "stack"
	if err := tensor.CheckInputs(name, x, -1); err != nil {
		return nil, nil, err
	}
	first := x[0].Shape()
	a, err := tensor.Axis(name, o.axis, len(first)+1)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range x {
		if !slices.Equal(v.Shape(), first) {
			return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %d is %v, input 0 is %v", name, k, v.Shape(), first)
		}
	}
	out := slices.Insert(slices.Clone(first), a, len(x))
	if err := checkOut(name, x, out); err != nil {
		return nil, nil, err
	}
	ro := rowMajor(out)
	dst := slices.Delete(slices.Clone(ro), a, a+1)
	rs := rowMajor(first)
	ps := make([]piece, len(x))
	for k := range x {
		ps[k] = piece{input: k, shape: slices.Clone(first), srcSt: rs, dstSt: dst}
		if prod(first) > 0 {
			ps[k].dstOff = k * ro[a]
		}
	}
	return newLinear(name, x, out).withPieces(ps).run(in, x)
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

package nn

import (
	"fmt"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The index-valued ops argmax, argmin and one_hot are not differentiable: their
// outputs are integers (held as float64), piecewise constant in the input. They
// can be recorded on any tape, and their outputs used freely (as labels, masks,
// accuracy counts) wherever no derivative has to pass through them. Where one
// would, the op refuses: its rule's pullback, forward tangent and second-order
// rule return an error wrapping chainrules.ErrNoRule that names the op. So a loss
// that depends on a parameter only through argmax fails in Backward instead of
// returning a gradient of zero, and a forward sweep (a JVP, the first half of a
// Hessian-vector product) fails as soon as a tangent reaches argmax's input. To use
// them inside a function that is differentiated, record them under
// core.Tape.NoGrad, or on values that carry no derivative (Tape.Constant, data):
// their outputs are then constants, as PyTorch's integer tensors are.
//
// nn.Register adds them to a registry marked chainrules.Entry.NoDerivative:
// testing/ruletest then checks that every derivative through them is that error.

// ArgmaxOp returns PyTorch's argmax(x, dim=axis, keepdim) of a float64 tensor: the
// position of the largest element of each lane along axis, as a float64 integer;
// the first one when several are equal, and the first NaN if the lane holds a NaN
// (NaN counts as the largest, as in PyTorch). The output has x's shape without
// axis, or with axis of size 1 when keepdim is set. (For the argmax of the whole
// tensor, reshape it to one axis first.) The op is not differentiable: see the
// note above; differentiating through it is an error wrapping
// chainrules.ErrNoRule. An empty axis, an axis out of range or complex input is
// an error wrapping ErrInvalidArgument.
func ArgmaxOp(axis int, keepdim bool) cr.Op[*tensor.Dense] {
	return &argOp{name: "argmax", axis: axis, keepdim: keepdim, better: func(a, b float64) bool { return a > b }}
}

// ArgminOp returns PyTorch's argmin(x, dim=axis, keepdim): as ArgmaxOp for the
// smallest element (the first NaN still wins, as in PyTorch).
func ArgminOp(axis int, keepdim bool) cr.Op[*tensor.Dense] {
	return &argOp{name: "argmin", axis: axis, keepdim: keepdim, better: func(a, b float64) bool { return a < b }}
}

// Argmax evaluates ArgmaxOp(axis, keepdim) at x without a tape.
func Argmax(x *tensor.Dense, axis int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(ArgmaxOp(axis, keepdim), x)
}

// Argmin evaluates ArgminOp(axis, keepdim) at x without a tape.
func Argmin(x *tensor.Dense, axis int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(ArgminOp(axis, keepdim), x)
}

type argOp struct {
	name    string
	axis    int
	keepdim bool
	better  func(a, b float64) bool // a replaces the current best b
}

func (o *argOp) Name() string { return o.name }

// NumOutputs returns 1.
func (o *argOp) NumOutputs() int { return 1 }

func (o *argOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := checkRealInputs(o.name, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	lshape := shape
	if len(shape) == 0 {
		lshape = []int{1}
	}
	ax, err := normAxis(o.name, o.axis, len(lshape))
	if err != nil {
		return nil, err
	}
	l := lanesOf(lshape, ax)
	if l.n == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d is empty", o.name, o.axis)
	}
	xs := float64s(x[0])
	idx := make([]float64, l.outer*l.inner)
	for a := range l.outer {
		for b := range l.inner {
			best, at := xs[l.at(a, 0, b)], 0
			for j := 1; j < l.n && !math.IsNaN(best); j++ {
				if v := xs[l.at(a, j, b)]; math.IsNaN(v) || o.better(v, best) {
					best, at = v, j
				}
			}
			idx[a*l.inner+b] = float64(at)
		}
	}
	oshape := slices.Clone(lshape)
	if o.keepdim {
		oshape[ax] = 1
	} else {
		oshape = slices.Delete(oshape, ax, ax+1)
	}
	if len(shape) == 0 {
		oshape = []int{}
	}
	y, err := tensor.FromFloat64(idx, oshape...)
	if err != nil {
		return nil, err
	}
	out[0] = y
	return &noGradRule{name: o.name, in: slices.Clone(in)}, nil
}

// OneHotOp returns PyTorch's one_hot(labels, num_classes): for a float64 tensor of
// integer labels of shape S, the float64 tensor of shape [S..., C] with
//
//	y[i..., c] = 1 if labels[i...] = c, else 0.
//
// numClasses = -1 takes C = max(labels) + 1, as PyTorch does. A label that is not an
// integer in [0, C), numClasses = -1 with no labels, a numClasses below -1 or
// complex input is an error wrapping chainrules.ErrInvalidArgument. The op is not
// differentiable (see ArgmaxOp): differentiating through it is an error wrapping
// chainrules.ErrNoRule.
func OneHotOp(numClasses int) cr.Op[*tensor.Dense] { return oneHotOp{c: numClasses} }

// OneHot evaluates OneHotOp(numClasses) at labels without a tape.
func OneHot(labels *tensor.Dense, numClasses int) (*tensor.Dense, error) {
	return cr.Eval(OneHotOp(numClasses), labels)
}

type oneHotOp struct{ c int }

func (oneHotOp) Name() string { return "one_hot" }

// NumOutputs returns 1.
func (oneHotOp) NumOutputs() int { return 1 }

func (o oneHotOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	const name = "one_hot"
	if err := checkRealInputs(name, x, 1); err != nil {
		return nil, err
	}
	labels, err := Indices(x[0])
	if err != nil {
		return nil, err
	}
	c := o.c
	switch {
	case c < -1:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d classes", name, c)
	case c == -1 && len(labels) == 0:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: cannot infer the number of classes from no labels", name)
	case c == -1:
		c = slices.Max(labels) + 1
	}
	if c > 0 && len(labels) > math.MaxInt/c {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d labels of %d classes overflow", name, len(labels), c)
	}
	for _, v := range labels {
		if v < 0 || v >= c {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: label %d is outside [0, %d)", name, v, c)
		}
	}
	y, err := tensor.Alloc(tensor.Float64, append(slices.Clone(x[0].Shape()), c)...)
	if err != nil {
		return nil, fmt.Errorf("%s: the result is too large: %w", name, err)
	}
	d := y.Float64s()
	for i, v := range labels {
		d[i*c+v] = 1
	}
	out[0] = y
	return &noGradRule{name: name, in: slices.Clone(in)}, nil
}

// Indices returns the elements of a float64 tensor of integers (the indices of
// SortOp, TopKOp, ArgmaxOp, or labels) as ints, in row-major order: the labels that
// CrossEntropyOp and NLLLossOp take. An element that is not an integer of at most
// 2^53 in magnitude, or complex input, is an error wrapping
// chainrules.ErrInvalidArgument.
func Indices(t *tensor.Dense) ([]int, error) {
	if t == nil || t.DType() != tensor.Float64 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "indices: %s is not a float64 tensor", describe(t))
	}
	if err := tensor.CheckAlloc(tensor.Float64, t.Shape()...); err != nil { // the []int is as large
		return nil, fmt.Errorf("indices: the labels are too large to convert: %w", err)
	}
	xs := float64s(t)
	out := make([]int, len(xs))
	for i, v := range xs {
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "indices: element %d is %v, not an integer", i, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// noGradRule is the rule of a non-differentiable op: every derivative through it
// is an error wrapping chainrules.ErrNoRule that names the op.
type noGradRule struct {
	name string
	in   []cr.NodeID
}

func (r *noGradRule) Inputs() []cr.NodeID { return r.in }

func (r *noGradRule) err() error {
	return cr.Errorf(cr.ErrNoRule, "%s is not differentiable (its output is integer-valued, piecewise constant in its input): "+
		"record it under Tape.NoGrad or on constants where derivatives are taken", r.name)
}

func (r *noGradRule) Pullback(_ []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return dst, r.err()
}

func (r *noGradRule) Forward(_ cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	return r.err()
}

func (r *noGradRule) PullbackWithTangents(_ cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return dst, r.err()
}

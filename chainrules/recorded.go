package chainrules

import (
	"errors"
	"fmt"
	"slices"
)

// ErrOrderNotSupported: a derivative of an order that an op's rules do not reach
// was asked for, typically a recorded backward sweep (core.Tape.GradGraph) that
// reached a rule without RecordPullback, or one whose RecordPullback declined. The
// error is an *OrderError that names the op and the order.
var ErrOrderNotSupported = errors.New("derivative of this order not supported")

// OrderError reports that an op cannot be differentiated to Order: its rule has no
// pullback recorded with ops (PullbackRecorder), which every derivative through the
// op of order Order and above needs. It wraps ErrOrderNotSupported.
type OrderError struct {
	Op    string
	Order int
}

// Error names the op and the order.
func (e *OrderError) Error() string {
	return fmt.Sprintf("%v: %s has no pullback recorded with ops, which derivatives of order %d and above through it need",
		ErrOrderNotSupported, e.Op, e.Order)
}

// Unwrap returns ErrOrderNotSupported.
func (e *OrderError) Unwrap() error { return ErrOrderNotSupported }

// PullbackRecorder is the optional interface of a Rule whose pullback can be
// recorded with ops: what derivatives of any order are built from (PyTorch's
// create_graph, JAX's jvp rules written with primitives). RecordPullback records on
// r the cotangents
//
//	xbar_k = sum_j J_jk(x)^* ybar_j
//
// as nodes computed by ops from the nodes of the inputs x, the outputs y and the
// output cotangents ybar (ybar[j] is the zero NodeID when output j's cotangent is
// absent), and returns one node per input: the zero NodeID for an input whose
// cotangent is zero or that is not differentiable. It must compute the same values as
// Pullback. Since the cotangents are recorded, a sweep can differentiate them again,
// to any order that the ops they use reach; an op that is linear in its
// differentiable inputs records its adjoint map, which is linear too
// (LinearRule does this), so it reaches every order.
//
// A recording error is the recorder's sticky error; RecordPullback returns it, or an
// error of its own. A rule that cannot record its pullback for the values it was
// applied to returns ErrOrderNotSupported itself: the sweep, which knows how deep the
// node sits, reports it as an *OrderError naming the op and the order.
type PullbackRecorder[V any] interface {
	RecordPullback(r Recorder[V], x, y, ybar []NodeID) ([]NodeID, error)
}

// AddOp returns the op y = a + b of two values of the same shape and dtype, in
// space: the op a recorded backward sweep adds cotangents with. Its pullback passes
// ybar to both inputs; it is linear, so it has every rule, RecordPullback included.
func AddOp[V any](space Space[V]) Op[V] { return addOp[V]{space} }

type addOp[V any] struct{ space Space[V] }

func (addOp[V]) Name() string    { return "accumulate" }
func (addOp[V]) NumOutputs() int { return 1 }

func (o addOp[V]) Apply(in []NodeID, x, y []V) (Rule[V], error) {
	if len(x) != 2 || len(in) != 2 {
		return nil, Errorf(ErrInvalidArgument, "accumulate: takes 2 inputs, got %d", len(x))
	}
	if !sameLayout(o.space, x[0], x[1]) {
		return nil, Errorf(ErrShapeMismatch, "accumulate: %s and %s", o.space.Describe(x[0]), o.space.Describe(x[1]))
	}
	s, err := o.space.Add(x[0], x[1])
	if err != nil {
		return nil, fmt.Errorf("accumulate: %w", err)
	}
	y[0] = s
	return &addRule[V]{space: o.space, in: [2]NodeID{in[0], in[1]}}, nil
}

// addRule differentiates y = a + b: abar = bbar = ybar, ydot = adot + bdot.
type addRule[V any] struct {
	space Space[V]
	in    [2]NodeID
}

func (r *addRule[V]) Inputs() []NodeID { return r.in[:] }

func (r *addRule[V]) Pullback(ybar []V, _ []bool, dst []Contribution[V]) ([]Contribution[V], error) {
	return append(dst, Contribution[V]{Node: r.in[0], Value: ybar[0]}, Contribution[V]{Node: r.in[1], Value: ybar[0]}), nil
}

func (r *addRule[V]) Forward(tangentOf TangentOf[V], ydot []V, has []bool) error {
	a, okA := tangentOf(r.in[0])
	b, okB := tangentOf(r.in[1])
	switch {
	case okA && okB:
		s, err := r.space.Add(a, b)
		if err != nil {
			return err
		}
		ydot[0], has[0] = s, true
	case okA:
		ydot[0], has[0] = a, true
	case okB:
		ydot[0], has[0] = b, true
	}
	return nil
}

func (r *addRule[V]) PullbackWithTangents(a SecondOrderArgs[V], dst []DualContribution[V]) ([]DualContribution[V], error) {
	c := a.Cotangents[0]
	return append(dst, DualContribution[V]{Node: r.in[0], Cotangent: c}, DualContribution[V]{Node: r.in[1], Cotangent: c}), nil
}

func (r *addRule[V]) RecordPullback(_ Recorder[V], _, _, ybar []NodeID) ([]NodeID, error) {
	return []NodeID{ybar[0], ybar[0]}, nil
}

// sameLayout reports whether a and b have the same shape and dtype in space.
func sameLayout[V any](space Space[V], a, b V) bool {
	if l, ok := space.(LayoutSpace[V]); ok {
		return l.SameLayout(a, b)
	}
	return slices.Equal(space.Shape(a), space.Shape(b)) && space.DType(a) == space.DType(b)
}

// FreshStorage marks the sum and its cotangents as storage of its own (Space.Add) or
// views of its cotangent (FreshStorage), so that a released tape reuses it.
func (*addRule[V]) FreshStorage() {}

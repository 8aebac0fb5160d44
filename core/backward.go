package core

import (
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// BackwardOption configures a reverse sweep.
type BackwardOption func(*backwardConfig)

type backwardConfig struct {
	allNodes bool
	release  bool
}

// AllNodes keeps the cotangent of every node the sweep reaches, not only the leaves'.
func AllNodes() BackwardOption { return func(c *backwardConfig) { c.allNodes = true } }

// ReleaseGraph frees the tape after the sweep (a one-shot graph), as Free does.
func ReleaseGraph() BackwardOption { return func(c *backwardConfig) { c.release = true } }

func configure(opts []BackwardOption) backwardConfig {
	var c backwardConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Backward runs the reverse sweep from a scalar output with seed 1: the result holds
// d out / d leaf for every leaf the output depends on. An output of more than one
// element, or a complex one (whose real part is the loss to differentiate), is an
// error wrapping ErrNonScalarLoss (BackwardSeed takes any seed).
func (t *Tape[V]) Backward(out cr.NodeID, opts ...BackwardOption) (*Gradients[V], error) {
	seed, err := t.scalarSeed(out)
	if err != nil {
		return nil, err
	}
	return t.BackwardSeed(out, seed, opts...)
}

func (t *Tape[V]) scalarSeed(out cr.NodeID) (V, error) {
	var zero V
	if err := t.Err(); err != nil {
		return zero, err
	}
	i, err := t.index(out)
	if err != nil {
		return zero, err
	}
	v := t.at(i).value
	if n := t.space.Size(v); n != 1 {
		return zero, &cr.OpError{Op: t.nameOf(i), Node: out, Phase: "backward",
			Err: cr.Errorf(cr.ErrNonScalarLoss, "output is %s", t.space.Describe(v))}
	}
	if strings.HasPrefix(t.space.DType(v), "complex") {
		// PyTorch and JAX refuse too: the gradient of a complex function is not
		// defined, and silently differentiating Re f would hide the mistake.
		return zero, &cr.OpError{Op: t.nameOf(i), Node: out, Phase: "backward",
			Err: cr.Errorf(cr.ErrNonScalarLoss, "output is %s: a complex loss has no gradient; take its real part "+
				"(or give the cotangent seed explicitly)", t.space.Describe(v))}
	}
	return t.space.One(v)
}

// sameLayout reports whether a and b have the same shape and dtype.
func (t *Tape[V]) sameLayout(a, b V) bool {
	return t.oneLayout || t.sameLayoutOf(a, b)
}

// sameLayoutOf is sameLayout asked of the space.
func (t *Tape[V]) sameLayoutOf(a, b V) bool {
	if t.layout != nil {
		return t.layout.SameLayout(a, b)
	}
	return slices.Equal(t.space.Shape(a), t.space.Shape(b)) && t.space.DType(a) == t.space.DType(b)
}

// checkSeed checks a seed given for node i (NodeID id) by a sweep of the given
// phase: what names it ("seed", "tangent seed", ...).
func (t *Tape[V]) checkSeed(i int, id cr.NodeID, seed V, phase, what string) error {
	if t.isNil(seed) {
		return &cr.OpError{Op: t.nameOf(i), Node: id, Phase: phase, Err: cr.Errorf(cr.ErrInvalidArgument, "%s is nil", what)}
	}
	if !t.sameLayout(seed, t.at(i).value) {
		return &cr.OpError{Op: t.nameOf(i), Node: id, Phase: phase,
			Err: cr.Errorf(cr.ErrShapeMismatch, "%s is %s, the node's value is %s", what, t.space.Describe(seed), t.space.Describe(t.at(i).value))}
	}
	return nil
}

// BackwardSeed runs the reverse sweep from out with the cotangent seed (shaped like
// the output): the result holds J^* seed for every leaf the output depends on, where
// J is the Jacobian of the output with respect to that leaf.
//
// The sweep visits nodes in decreasing index order (a topological order), runs the
// pullback of every node that the output reaches and that depends on a leaf, and adds
// the contributions that reach a node more than once. When it reaches a node its
// cotangent is complete: it then runs the node's hooks (AddHook), then its pullback.
// It uses no recursion, so graph depth is limited only by memory. The graph is kept
// (a second sweep gives the same result) unless ReleaseGraph is given.
func (t *Tape[V]) BackwardSeed(out cr.NodeID, seed V, opts ...BackwardOption) (*Gradients[V], error) {
	cfg := configure(opts)
	if !t.enter() {
		return nil, errConcurrentUse
	}
	defer t.leave()
	if err := t.Err(); err != nil {
		return nil, err
	}
	o, err := t.index(out)
	if err != nil {
		return nil, err
	}
	if err := t.checkSeed(o, out, seed, "backward", "seed"); err != nil {
		return nil, err
	}
	seeds := [1]seedAt[V]{{o, seed}}
	top := t.groupEnd(o)
	box := newGradientsBox[V](top + 1)
	acc, _, err := t.sweep(seeds[:], nil, top, cfg.allNodes, true, true, nil, box)
	if err == nil && t.misused() {
		err = errConcurrentUse // a hook or a rule re-entered the tape during the sweep
	}
	if err != nil {
		return nil, err
	}
	g := box.gradients(t, acc)
	if cfg.release {
		t.free()
	}
	return g, nil
}

// checkTarget validates the node and the value of one term of node i's pullback: the
// node must be one of the rule's inputs, recorded before node i, and the value
// non-nil. It returns the node's index.
func (t *Tape[V]) checkTarget(i int, ins []cr.NodeID, node cr.NodeID, v V) (int, error) {
	j := node.Index()
	if node.Tape() != t.tag || j >= i || !slices.Contains(ins, node) {
		return 0, t.opErr(i, "pullback", cr.Errorf(cr.ErrMissingNode, "contribution to %v, which is not an input of the op", node))
	}
	if t.isNil(v) {
		return 0, t.opErr(i, "pullback", cr.Errorf(cr.ErrInvalidArgument, "contribution to input %v is nil", node))
	}
	return j, nil
}

func (t *Tape[V]) opErr(i int, phase string, err error) error {
	return &cr.OpError{Op: t.nameOf(i), Node: cr.NewNodeID(t.tag, i), Phase: phase, Err: err}
}

// checkContribution validates one term of node i's pullback: it must name one of the
// rule's inputs, recorded before node i, and be a non-nil value shaped like that
// input's value.
func (t *Tape[V]) checkContribution(i int, ins []cr.NodeID, node cr.NodeID, v V) (int, error) {
	j, err := t.checkTarget(i, ins, node, v)
	if err != nil {
		return 0, err
	}
	if !t.sameLayout(v, t.at(j).value) {
		return 0, t.opErr(i, "pullback", cr.Errorf(cr.ErrShapeMismatch,
			"contribution to input %v is %s, the input is %s", node, t.space.Describe(v), t.space.Describe(t.at(j).value)))
	}
	return j, nil
}

package ruletest

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// subject is the op under test. The checks see every op as an op with NumOutputs
// outputs; a single-output op is the case of one output, checked and reported as
// it always was.
type subject[V any] struct {
	op cr.Op[V]
}

func (s subject[V]) valid() bool { return s.op != nil }

// isMulti reports whether the op has several outputs (reported per output).
func (s subject[V]) isMulti() bool { return s.nout() > 1 }

func (s subject[V]) name() string { return s.op.Name() }

// nout is the number of outputs the op reports.
func (s subject[V]) nout() int { return s.op.NumOutputs() }

// differentiable reports whether input k receives a cotangent.
func (s subject[V]) differentiable(k int) bool { return cr.IsDifferentiable(s.op, k) }

// outputDifferentiable reports whether output m carries derivatives.
func (s subject[V]) outputDifferentiable(m int) bool { return cr.IsOutputDifferentiable(s.op, m) }

// apply calls Apply on exactly the slices given (no copies, no recovery from
// panics) and checks what comes back: a rule, and NumOutputs outputs.
func (s subject[V]) apply(in []cr.NodeID, x []V) ([]V, anyRule[V], error) {
	k := s.nout()
	if k < 1 {
		return nil, anyRule[V]{}, cr.Errorf(cr.ErrInvalidArgument, "NumOutputs is %d", k)
	}
	ys := make([]V, k)
	r, err := s.op.Apply(in, x, ys)
	if err == nil && r == nil {
		err = cr.Errorf(cr.ErrNoRule, "Apply returned a nil rule")
	}
	if err != nil {
		return nil, anyRule[V]{}, err
	}
	return ys, anyRule[V]{r: r, ys: slices.Clone(ys)}, nil
}

// record records the op on tape and returns the NodeIDs of its outputs.
func (s subject[V]) record(tape *core.Tape[V], ids []cr.NodeID) []cr.NodeID {
	return tape.ApplyMulti(s.op, ids...)
}

// anyRule is the rule of a subject with the outputs it was applied to, which its
// second-order method receives with their forward tangents, as in the engine.
type anyRule[V any] struct {
	r  cr.Rule[V]
	ys []V
}

// impl returns the rule the op returned, for messages (%T).
func (r anyRule[V]) impl() any { return r.r }

func (r anyRule[V]) inputs() []cr.NodeID { return r.r.Inputs() }

func (r anyRule[V]) pullback(ybar []V, has []bool, dst []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	return r.r.Pullback(ybar, has, dst)
}

// forwardFunc writes the output tangents into ydot and sets has, as
// cr.ForwardRule.Forward does.
type forwardFunc[V any] func(tangentOf cr.TangentOf[V], ydot []V, has []bool) error

// forward returns the rule's forward method, or false if it has none.
func (r anyRule[V]) forward() (forwardFunc[V], bool) {
	fr, ok := r.r.(cr.ForwardRule[V])
	if !ok {
		return nil, false
	}
	return fr.Forward, true
}

// secondFunc is cr.SecondOrderRule.PullbackWithTangents with the output tangents
// filled in from the rule's own Forward.
type secondFunc[V any] func(ct []cr.Dual[V], has []bool, tangentOf cr.TangentOf[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error)

// second returns the rule's second-order method, or false if it has none. Like the
// engine's second-order sweep, it gives the rule its outputs with the tangents that
// its Forward computes from tangentOf (zero when it has no Forward).
func (r anyRule[V]) second() (secondFunc[V], bool) {
	_, ok := r.r.(cr.SecondOrderRule[V])
	if !ok {
		return nil, false
	}
	return func(ct []cr.Dual[V], has []bool, tangentOf cr.TangentOf[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error) {
		return cr.PullbackWithTangentsOf(r.r, r.ys, ct, has, tangentOf, dst)
	}, ok
}

// interfaceNames names the optional interfaces of the subject's rules.
func (s subject[V]) interfaceNames() (forward, second string) {
	return "chainrules.ForwardRule", "chainrules.SecondOrderRule"
}

// selection is a set of outputs whose cotangents are present in one round of
// checks: one differentiable output alone, or all of them together. Outputs outside
// it get absent cotangents (has[m] false, never materialised).
type selection struct {
	// name is the subtest level of the round: "" for a single-output op, "y1" for
	// output 1 alone, "all" for every differentiable output together.
	name string
	on   []bool
}

// count returns the number of outputs in s.
func (s selection) count() int {
	n := 0
	for _, o := range s.on {
		if o {
			n++
		}
	}
	return n
}

func (s selection) has() []bool { return slices.Clone(s.on) }

package ruletest

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// subject is the op under test: a single-output cr.Op or a cr.MultiOp (exactly one
// is set). The checks see both as an op with NumOutputs outputs; a single-output op
// is the case of one output, checked and reported as it always was.
type subject[V any] struct {
	op    cr.Op[V]
	multi cr.MultiOp[V]
}

func (s subject[V]) valid() bool { return s.op != nil || s.multi != nil }

func (s subject[V]) isMulti() bool { return s.multi != nil }

func (s subject[V]) name() string {
	if s.multi != nil {
		return s.multi.Name()
	}
	return s.op.Name()
}

// nout is the number of outputs the op reports.
func (s subject[V]) nout() int {
	if s.multi != nil {
		return s.multi.NumOutputs()
	}
	return 1
}

// differentiable reports whether input k receives a cotangent.
func (s subject[V]) differentiable(k int) bool {
	if s.multi != nil {
		if p, ok := s.multi.(cr.PartialOp); ok {
			return p.Differentiable(k)
		}
		return true
	}
	return cr.IsDifferentiable(s.op, k)
}

// outputDifferentiable reports whether output m carries derivatives.
func (s subject[V]) outputDifferentiable(m int) bool {
	if s.multi != nil {
		return cr.IsOutputDifferentiable(s.multi, m)
	}
	return true
}

// apply calls Apply or ApplyMulti on exactly the slices given (no copies, no
// recovery from panics) and checks what comes back: a rule, and NumOutputs outputs.
func (s subject[V]) apply(in []cr.NodeID, x []V) ([]V, anyRule[V], error) {
	if s.multi != nil {
		ys, r, err := s.multi.ApplyMulti(in, x)
		switch {
		case err != nil:
			return nil, anyRule[V]{}, err
		case r == nil:
			return nil, anyRule[V]{}, cr.Errorf(cr.ErrNoRule, "ApplyMulti returned a nil rule")
		case len(ys) != s.nout():
			return nil, anyRule[V]{}, cr.Errorf(cr.ErrInvalidArgument, "ApplyMulti returned %d outputs, NumOutputs is %d", len(ys), s.nout())
		}
		return ys, anyRule[V]{multi: r}, nil
	}
	y, r, err := s.op.Apply(in, x)
	if err == nil && r == nil {
		err = cr.Errorf(cr.ErrNoRule, "Apply returned a nil rule")
	}
	if err != nil {
		return nil, anyRule[V]{}, err
	}
	return []V{y}, anyRule[V]{single: r}, nil
}

// record records the op on tape and returns the NodeIDs of its outputs.
func (s subject[V]) record(tape *core.Tape[V], ids []cr.NodeID) []cr.NodeID {
	if s.multi != nil {
		return tape.ApplyMulti(s.multi, ids...)
	}
	return []cr.NodeID{tape.Apply(s.op, ids...)}
}

// anyRule is the rule of a subject: a cr.ReverseRule or a cr.MultiRule (exactly one
// is set), called through the multi-output signatures. For a single-output rule
// the slices have one slot.
type anyRule[V any] struct {
	single cr.ReverseRule[V]
	multi  cr.MultiRule[V]
}

// impl returns the rule the op returned, for messages (%T).
func (r anyRule[V]) impl() any {
	if r.multi != nil {
		return r.multi
	}
	return r.single
}

func (r anyRule[V]) inputs() []cr.NodeID {
	if r.multi != nil {
		return r.multi.Inputs()
	}
	return r.single.Inputs()
}

// pullback is PullbackMulti, or Pullback of ybar[0] (nothing when has[0] is false).
func (r anyRule[V]) pullback(ybar []V, has []bool, dst []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	if r.multi != nil {
		return r.multi.PullbackMulti(ybar, has, dst)
	}
	if !has[0] {
		return dst, nil
	}
	return r.single.Pullback(ybar[0], dst)
}

// forwardFunc writes the output tangents into ydot and sets has, as
// cr.MultiForwardRule.ForwardTangentsMulti does.
type forwardFunc[V any] func(tangentOf cr.TangentOf[V], ydot []V, has []bool) error

// forward returns the rule's forward method, or false if it has none.
func (r anyRule[V]) forward() (forwardFunc[V], bool) {
	if r.multi != nil {
		fr, ok := r.multi.(cr.MultiForwardRule[V])
		if !ok {
			return nil, false
		}
		return fr.ForwardTangentsMulti, true
	}
	fr, ok := r.single.(cr.ForwardRule[V])
	if !ok {
		return nil, false
	}
	return func(tangentOf cr.TangentOf[V], ydot []V, has []bool) error {
		y, ok, err := fr.ForwardTangents(tangentOf)
		if err != nil {
			return err
		}
		if ok {
			ydot[0], has[0] = y, true
		}
		return nil
	}, true
}

// secondFunc is cr.MultiSecondOrderRule.PullbackWithTangentsMulti.
type secondFunc[V any] func(ct []cr.Dual[V], has []bool, tangentOf cr.TangentOf[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error)

// second returns the rule's second-order method, or false if it has none.
func (r anyRule[V]) second() (secondFunc[V], bool) {
	if r.multi != nil {
		sr, ok := r.multi.(cr.MultiSecondOrderRule[V])
		if !ok {
			return nil, false
		}
		return sr.PullbackWithTangentsMulti, true
	}
	sr, ok := r.single.(cr.SecondOrderRule[V])
	if !ok {
		return nil, false
	}
	return func(ct []cr.Dual[V], has []bool, tangentOf cr.TangentOf[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error) {
		if !has[0] {
			return dst, nil
		}
		return sr.PullbackWithTangents(ct[0], tangentOf, dst)
	}, true
}

// interfaceNames names the optional interfaces of the subject's rules.
func (s subject[V]) interfaceNames() (forward, second string) {
	if s.multi != nil {
		return "chainrules.MultiForwardRule", "chainrules.MultiSecondOrderRule"
	}
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

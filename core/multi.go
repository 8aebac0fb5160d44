package core

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// multiRule is the rule a tape stores at the last output of a multi-output op. It
// is a ReverseRule only so that the node array keeps one rule type; the sweeps call
// the MultiRule it wraps.
type multiRule[V any] struct {
	r cr.MultiRule[V]
	k int // number of outputs
}

func (m *multiRule[V]) Inputs() []cr.NodeID { return m.r.Inputs() }

// Pullback is never called by the engine: a multi-output op is differentiated as a
// whole, from the cotangents of all its outputs.
func (m *multiRule[V]) Pullback(V, []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	return nil, cr.Errorf(cr.ErrNoRule, "a multi-output op has no single-output pullback")
}

// groupEnd returns the index of the node that carries the rule of node i: i itself,
// or the last output of i's multi-output op.
func (t *Tape[V]) groupEnd(i int) int {
	if nd := t.at(i); nd.flags&flagSibling != 0 {
		return i + int(nd.grp)
	}
	return i
}

// ruleOf returns the rule that differentiates node i (shared by all outputs of a
// multi-output op), or nil for leaves and constants.
func (t *Tape[V]) ruleOf(i int) cr.ReverseRule[V] {
	return t.at(t.groupEnd(i)).rule
}

// ApplyMulti computes the multi-output op on the values at inputs and records its
// outputs as op.NumOutputs() consecutive nodes, whose NodeIDs it returns in order.
// The op's rule is run once per sweep, with the cotangents (or tangents) of all
// outputs: an output nobody uses has an absent cotangent, which is never
// materialised. Outputs that the op declares non-differentiable
// (chainrules.PartialOutputs) are recorded like constants.
//
// After an error (now or earlier) it returns op.NumOutputs() zero NodeIDs and Err
// reports the first error, as Apply does. While gradients are disabled the outputs
// are recorded without the rule.
func (t *Tape[V]) ApplyMulti(op cr.MultiOp[V], inputs ...cr.NodeID) []cr.NodeID {
	k := op.NumOutputs()
	out := make([]cr.NodeID, max(k, 0))
	if !t.enter() {
		return out
	}
	defer t.leave()
	if t.Err() != nil {
		return out
	}
	pc := t.recordingSite()
	name := op.Name()
	first := t.n // the index of the first output
	fail := func(err error) []cr.NodeID {
		t.fail(t.applyErr(name, first, err))
		return out
	}
	if k < 1 {
		return fail(cr.Errorf(cr.ErrInvalidArgument, "op reports %d outputs", k))
	}
	in := slices.Clone(inputs)
	vals := make([]V, len(in))
	for j, id := range in {
		i, err := t.index(id)
		if err != nil {
			return fail(fmt.Errorf("input %d: %w", j, err))
		}
		vals[j] = t.at(i).value
	}
	if t.reg != nil || t.isFinite != nil {
		op = t.forInnerMulti(op) // composite.go
	}
	ys, rule, err := op.ApplyMulti(in, vals)
	if err != nil {
		return fail(err)
	}
	if len(ys) != k {
		return fail(cr.Errorf(cr.ErrInvalidArgument, "op returned %d outputs, it reports %d", len(ys), k))
	}
	if rule == nil {
		return fail(cr.Errorf(cr.ErrNoRule, "nil rule"))
	}
	var flags uint8
	for _, id := range rule.Inputs() {
		i, err := t.index(id)
		if err != nil {
			return fail(fmt.Errorf("the rule's input: %w", err))
		}
		flags |= t.at(i).flags & flagRequires
	}
	mr := &multiRule[V]{r: rule, k: k}
	for m, y := range ys {
		var (
			f uint8
			r cr.ReverseRule[V]
		)
		switch {
		case t.noGrad:
			f = flagConst
		case m < k-1:
			f = flagSibling
		default:
			f, r = flagMulti, mr
		}
		if !t.noGrad && cr.IsOutputDifferentiable(op, m) {
			f |= flags
		}
		id := t.push(y, r, name, f, pc)
		if t.err != nil {
			clear(out)
			return out
		}
		if f&flagSibling != 0 {
			t.at(id.Index()).grp = uint32(k - 1 - m)
		}
		if t.noGrad {
			t.detach(id.Index(), rule.Inputs())
		}
		out[m] = id
	}
	return out
}

var _ cr.MultiRecorder[float64] = (*Tape[float64])(nil)

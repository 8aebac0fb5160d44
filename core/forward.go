package core

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Tangents holds the result of a forward sweep: the tangent (JVP) of every node that
// depends on a seeded leaf.
type Tangents[V any] struct {
	tape *Tape[V]
	vals []V
	has  []bool
	of   cr.TangentOf[V]
}

// Of returns the tangent of id, and false when it is zero (id does not depend on a
// seeded leaf) or not on the tape.
func (tg *Tangents[V]) Of(id cr.NodeID) (V, bool) {
	var zero V
	if id.Tape() != tg.tape.tag || id.Index() >= len(tg.vals) || !tg.has[id.Index()] {
		return zero, false
	}
	return tg.vals[id.Index()], true
}

// ForwardTangents runs the forward sweep: given tangents xdot for some leaves (absent
// leaves have tangent zero), it computes for every recorded node y the directional
// derivative
//
//	ydot = sum over leaves x of (dy/dx) xdot
//
// by calling each op's Forward rule in recording order. An op that a tangent
// reaches but that has no forward rule is an error wrapping ErrNoRule that names it.
// Seeds must be keyed by leaves and shaped like them.
func (t *Tape[V]) ForwardTangents(seeds map[cr.NodeID]V) (*Tangents[V], error) {
	return t.forwardTangents(seeds, nil)
}

// forwardTangents is ForwardTangents computing only the tangents of the ops with
// an output j where need[j] is set; need nil means every op.
func (t *Tape[V]) forwardTangents(seeds map[cr.NodeID]V, need []bool) (*Tangents[V], error) {
	if !t.enter() {
		return nil, errConcurrentUse
	}
	defer t.leave()
	if err := t.Err(); err != nil {
		return nil, err
	}
	n := t.n
	tg := &Tangents[V]{tape: t, vals: make([]V, n), has: make([]bool, n)}
	tg.of = tg.Of
	for id, v := range seeds {
		i, err := t.index(id)
		if err != nil {
			return nil, err
		}
		if t.at(i).flags&flagLeaf == 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "tangent seed for %v, which is a %s, not a leaf", id, t.nameOf(i))
		}
		if err := t.checkSeed(i, id, v, "forward", "tangent seed"); err != nil {
			return nil, err
		}
		if t.isFinite != nil {
			if err := t.checkSweep(i, "forward", "tangent seed", v); err != nil {
				return nil, err
			}
		}
		tg.vals[i], tg.has[i] = v, true
		if t.collecting(false) {
			t.kept = append(t.kept, v)
		}
	}
	// The output tangents handed to a rule: one slot per output, reused by every op
	// of the sweep (rules must not retain them).
	ydot, has := make([]V, 1), make([]bool, 1)
	for i := range n {
		nd := t.at(i)
		rule := nd.rule
		if rule == nil || !tg.anyInput(rule) {
			continue
		}
		k := t.groupLen(i)
		if need != nil && !slices.Contains(need[i-k+1:i+1], true) {
			continue
		}
		if len(ydot) < k {
			ydot, has = make([]V, k), make([]bool, k)
		}
		if err := t.forward(i, k, rule, tg, ydot[:k], has[:k]); err != nil {
			return nil, err
		}
	}
	if t.misused() {
		return nil, errConcurrentUse // a rule re-entered the tape during the sweep
	}
	return tg, nil
}

func (tg *Tangents[V]) anyInput(rule cr.Rule[V]) bool {
	for _, in := range rule.Inputs() {
		if j := in.Index(); j < len(tg.has) && tg.has[j] {
			return true
		}
	}
	return false
}

// forward computes the tangents of the k outputs of the op whose last output is
// node i, with rule, in the slots ydot and has.
func (t *Tape[V]) forward(i, k int, rule cr.Rule[V], tg *Tangents[V], ydot []V, has []bool) error {
	fr, ok := rule.(cr.ForwardRule[V])
	if !ok {
		return t.opErr(i, "forward", cr.Errorf(cr.ErrNoRule, "op has no forward rule (Forward)"))
	}
	clear(ydot)
	clear(has)
	if err := fr.Forward(tg.of, ydot, has); err != nil {
		return t.ruleErr(i, "forward", err)
	}
	if t.collecting(false) {
		add := t.addKept
		if _, fresh := rule.(cr.FreshStorage); fresh {
			add = t.addDead
		}
		for m, ok := range has {
			if ok {
				add(ydot[m])
			}
		}
	}
	lo := i - k + 1
	for m, ok := range has {
		j := lo + m
		if !ok || t.at(j).flags&flagRequires == 0 {
			continue
		}
		what := "tangent"
		if k > 1 {
			what = fmt.Sprintf("tangent of output %d", m)
		}
		if t.isNil(ydot[m]) {
			return t.opErr(i, "forward", cr.Errorf(cr.ErrInvalidArgument, "the %s is nil", what))
		}
		if !t.sameLayout(ydot[m], t.at(j).value) {
			return t.opErr(i, "forward", cr.Errorf(cr.ErrShapeMismatch,
				"%s is %s, the value is %s", what, t.space.Describe(ydot[m]), t.space.Describe(t.at(j).value)))
		}
		if t.isFinite != nil {
			if err := t.checkSweep(j, "forward", "tangent", ydot[m]); err != nil {
				return err
			}
		}
		tg.vals[j], tg.has[j] = ydot[m], true
	}
	return nil
}

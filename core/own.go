package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Ownership of cotangents. A slot holds a value the engine does not own
// (borrowed: a seed, what a rule returned) or one it made (owned: a sum), and
// only an owned one is written in place, by Accumulate and by the row-sparse
// terms of settle. A rule's contribution is owned too when the sweep can tell
// that it is storage made for the call that nothing else refers to:
//
//   - the rule promises fresh storage (chainrules.FreshStorage): each
//     cotangent it returns is new or a view of a value it was given;
//   - the space can test storage for overlap (chainrules.OverlapSpace), and
//     the contribution shares none with the op's inputs and output, with the
//     op's other contributions (dense or row-sparse), nor with the cotangent
//     the rule was given — unless that cotangent was owned and the sweep drops
//     it after this pullback (no hook saw it, the caller keeps no inner
//     cotangents): then the rule passed it on (sub, add, a reshape's view), and
//     the storage changes hands.
//
// lse's gradient written from its parts is the case in point: exp's pullback
// makes its cotangent, sub passes it on to x, and the max adds its row-sparse
// term at the ties; x's gradient is then that array with the ties added in
// place, not a copy of it.

// freshRule reports whether the sweep may own rule's contributions: whether rule
// promises fresh storage and the space can test for overlap.
func (t *Tape[V]) freshRule(rule cr.Rule[V]) bool {
	if t.overlap == nil {
		return false
	}
	_, ok := rule.(cr.FreshStorage)
	return ok
}

// exclusive reports whether buf[k], a contribution of node i's fresh rule
// (freshRule) given the cotangent ybar, is storage nothing else refers to. ins are
// the op's inputs, rbuf its row-sparse terms, and passOn says whether ybar is
// owned and dropped after the pullback, so that it may change hands. buf[k] has
// been validated; the other contributions may not have been yet.
func (t *Tape[V]) exclusive(i int, ins []cr.NodeID, buf []cr.Contribution[V], k int, rbuf []cr.RowContribution[V], ybar V, passOn bool) bool {
	ov := t.overlap
	v := buf[k].Value
	if ov.MayOverlap(v, t.at(i).value) || (!passOn && ov.MayOverlap(v, ybar)) {
		return false
	}
	for _, in := range ins {
		if in.Tape() == t.tag && in.Index() < i && ov.MayOverlap(v, t.at(in.Index()).value) {
			return false
		}
	}
	for k2, c := range buf {
		if k2 != k && !t.isNil(c.Value) && ov.MayOverlap(v, c.Value) {
			return false
		}
	}
	for _, c := range rbuf {
		if !t.isNil(c.Value) && ov.MayOverlap(v, c.Value) {
			return false
		}
	}
	return true
}

// addOwned adds v, storage the engine may write (see exclusive), to node j's slot.
func (a *accum[V]) addOwned(j int, v V) error {
	a.forgetSum(j)
	switch a.state[j] {
	case absent:
		a.vals[j], a.state[j] = v, owned
		return nil
	case borrowed:
		s, err := a.space.Accumulate(v, a.vals[j])
		if err != nil {
			return err
		}
		a.vals[j], a.state[j] = s, owned
		return nil
	default: // owned: v is added into the slot's own storage
		return a.addTo(j, v)
	}
}

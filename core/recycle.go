package core

import cr "github.com/chainrules-go/chainrules/chainrules"

// EnableRecycling makes Release reuse the storage of the tape's values. Call it
// on a fresh tape, before recording: from then on, Value marks the nodes whose
// values it hands out, so that Release keeps them, and first-order sweeps (Backward,
// BackwardSeed) keep the cotangents they are done with for Release to reuse. A
// program that evaluates the same function again and again (an optimiser's
// gradient at every step) then makes each evaluation's values in the previous
// one's memory instead of in new pages: the hvp package's transforms do this.
func (t *Tape[V]) EnableRecycling() {
	if !t.enter() {
		return
	}
	defer t.leave()
	t.recycling = true
}

// Release frees the tape, as Free does, and hands the storage of its values back
// to the Space for reuse (chainrules.Recycler), except the storage of the values
// in keep and of any value that may still be referred to:
//
//   - values handed out by Value (on a tape with EnableRecycling), leaves,
//     constants and the values given to Record;
//   - the outputs of ops whose rule does not promise fresh storage
//     (chainrules.FreshStorage), and the cotangents such rules returned;
//   - everything, when the tape has hooks, or the Space is not a Recycler, or
//     recycling was not enabled: Release is then Free.
//
// keep lists the results the caller goes on using, such as the gradients a
// Backward returned: storage that overlaps theirs is not reused. After Release,
// the tape and every value not kept are gone; a value obtained from the tape
// otherwise than through Value (from a Gradients, a Tangents or a hook) must be in
// keep to stay valid.
func (t *Tape[V]) Release(keep ...V) {
	if !t.enter() {
		return
	}
	defer t.leave()
	r, ok := t.space.(cr.Recycler[V])
	if ok && t.recycling && len(t.hooks) == 0 && !t.freed {
		dead, live := t.dead, append(t.kept, keep...)
		for i := range t.n {
			nd := t.at(i)
			if _, fresh := nd.rule.(cr.FreshStorage); fresh && nd.flags&(flagEscaped|flagSibling) == 0 {
				dead = append(dead, nd.value)
			} else {
				live = append(live, nd.value)
			}
		}
		r.Recycle(dead, live)
	}
	t.free()
}

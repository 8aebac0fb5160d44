package core

import cr "github.com/chainrules-go/chainrules/chainrules"

// EnableRecycling makes Release reuse the storage of the tape's values, and
// RecycleSweeps that of its sweeps' temporaries. Call it on a fresh tape, before
// recording: from then on, Value marks the nodes whose values it hands out, so
// that Release keeps them, and sweeps without hooks (Backward, ForwardTangents,
// BackwardWithTangents and their seeded forms, unless asked for every node's
// cotangent) keep the cotangents and tangents they are done with, if the Space
// would reuse them (chainrules.Recycler.Reusable), for Release and RecycleSweeps.
// A program that evaluates the same function again and again (an optimiser's
// gradient at every step) then makes each evaluation's values in the previous
// one's memory instead of in new pages: the hvp package's transforms do this. On a
// tape whose Space is not a chainrules.Recycler it does nothing.
//
// The caller takes on a duty: after the sweeps it runs, call RecycleSweeps (or
// Release when done with the tape). Until then the tape holds on to the sweeps'
// temporaries, so a tape swept again and again without either grows without bound.
func (t *Tape[V]) EnableRecycling() {
	if !t.enter() {
		return
	}
	defer t.leave()
	t.recycler, t.recycling = t.space.(cr.Recycler[V])
}

// addDead collects v, which nothing refers to any more, for Release and
// RecycleSweeps, if its storage is of a kind the Space reuses.
func (t *Tape[V]) addDead(v V) {
	if t.recycler.Reusable(v) {
		t.dead = append(t.dead, v)
	}
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
	if r := t.recycler; t.recycling && len(t.hooks) == 0 && !t.freed {
		dead := t.dead
		for i := range t.n {
			nd := t.at(i)
			if _, fresh := nd.rule.(cr.FreshStorage); fresh && nd.flags&(flagEscaped|flagSibling) == 0 && r.Reusable(nd.value) {
				dead = append(dead, nd.value)
			}
		}
		if len(dead) != 0 {
			// Everything else the tape knows of may still be referred to.
			live := append(t.kept, keep...)
			for i := range t.n {
				nd := t.at(i)
				if _, fresh := nd.rule.(cr.FreshStorage); !fresh || nd.flags&(flagEscaped|flagSibling) != 0 {
					live = append(live, nd.value)
				}
			}
			r.Recycle(dead, live)
		}
	}
	t.free()
}

// RecycleSweeps hands the storage of the temporaries of the sweeps run since the
// last Release or RecycleSweeps back to the Space for reuse, as Release does, but
// keeps the tape and all its node values: for a tape swept many times, such as a
// Hessian operator applied in every iteration of a Krylov solver. The values the
// caller goes on using (the results of those sweeps it keeps) go in keep; every
// other value obtained from those sweeps (from a Gradients or a Tangents) is gone.
// Without EnableRecycling, with hooks, or with a Space that is not a Recycler it
// does nothing.
func (t *Tape[V]) RecycleSweeps(keep ...V) {
	if !t.enter() {
		return
	}
	defer t.leave()
	if t.recycling && len(t.hooks) == 0 && !t.freed && len(t.dead) != 0 {
		live := append(t.kept, keep...)
		for i := range t.n {
			live = append(live, t.at(i).value)
		}
		t.recycler.Recycle(t.dead, live)
		clear(live)
		t.kept = live[:0]
	}
	clear(t.dead)
	t.dead = t.dead[:0]
	clear(t.kept)
	t.kept = t.kept[:0]
}

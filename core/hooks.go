package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Hook transforms the cotangent of a node during a reverse sweep: it receives the
// node's complete cotangent ybar and returns the cotangent the sweep continues with
// (ybar itself to only observe it). Gradient clipping, rescaling and logging are
// hooks. A hook must not modify ybar; it returns new storage for a new value.
type Hook[V any] func(ybar V) (V, error)

// DualHook is the form of a hook that the second-order sweep runs. It receives the
// cotangent pair (ybar, ybardot), where ybardot is the derivative of ybar along the
// forward tangents, and returns (h(ybar), Dh(ybar)[ybardot]) for the hook's map h,
// so that BackwardWithTangents differentiates the hooked gradient. A DualHook also
// serves first-order sweeps, which call it with the tangent absent and keep the
// Value of its result.
type DualHook[V any] func(ct cr.Dual[V]) (cr.Dual[V], error)

type hook[V any] struct {
	first Hook[V]
	dual  DualHook[V]
}

// AddHook registers h on node id. Every reverse sweep (Backward, BackwardSeed) that
// reaches id calls h with the node's cotangent once it is complete (all
// contributions added) and before the node's pullback runs; the result replaces the
// cotangent, so it is what flows to the node's inputs and, for a leaf, what the
// Gradients report: hooks on leaves run after accumulation. Hooks of one node run
// in the order they were added. Nodes the sweep does not reach (zero cotangent) do
// not call their hooks.
//
// Hooks shape only reverse sweeps: ForwardTangents and the maps of Linearize ignore
// them. A second-order sweep (BackwardWithTangents) applies h to the cotangent when
// the cotangent's tangent is zero; when a tangent reaches the node it fails with an
// error wrapping chainrules.ErrHVPNotSupported, since it cannot differentiate h:
// register a DualHook with AddDualHook instead.
func (t *Tape[V]) AddHook(id cr.NodeID, h Hook[V]) error {
	return t.addHook(id, hook[V]{first: h})
}

// AddDualHook registers h on node id for both kinds of reverse sweep: the
// second-order sweep passes it the cotangent pair, first-order sweeps the cotangent
// alone (see DualHook). Otherwise it behaves as AddHook.
func (t *Tape[V]) AddDualHook(id cr.NodeID, h DualHook[V]) error {
	return t.addHook(id, hook[V]{dual: h})
}

func (t *Tape[V]) addHook(id cr.NodeID, h hook[V]) error {
	return t.editHooks(id, func(i int) error {
		if h.first == nil && h.dual == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "nil hook for node %v", id)
		}
		if t.hooks == nil {
			t.hooks = make(map[int][]hook[V])
		}
		t.hooks[i] = append(t.hooks[i], h)
		t.at(i).flags |= flagHook
		return nil
	})
}

// RemoveHooks removes every hook of node id.
func (t *Tape[V]) RemoveHooks(id cr.NodeID) error {
	return t.editHooks(id, func(i int) error {
		delete(t.hooks, i)
		t.at(i).flags &^= flagHook
		return nil
	})
}

// editHooks runs edit on the index of node id as one use of the tape, after the
// checks that t is not in use already (errConcurrentUse) and that id is a node of t;
// it returns the first error.
func (t *Tape[V]) editHooks(id cr.NodeID, edit func(i int) error) error {
	if !t.enter() {
		return errConcurrentUse
	}
	defer t.leave()
	i, err := t.index(id)
	if err != nil {
		return err
	}
	return edit(i)
}

// runHooks applies node i's hooks to its cotangent in acc (first-order sweep).
func (t *Tape[V]) runHooks(i int, acc *accum[V]) error {
	v := acc.vals[i]
	for _, h := range t.hooks[i] {
		var err error
		if h.first != nil {
			v, err = h.first(v)
		} else {
			var d cr.Dual[V]
			d, err = h.dual(cr.Dual[V]{Value: v})
			v = d.Value
		}
		if err != nil {
			return t.opErr(i, "hook", err)
		}
		if err := t.checkHookResult(i, v, "cotangent"); err != nil {
			return err
		}
	}
	acc.vals[i], acc.state[i] = v, borrowed
	acc.forgetSum(i)
	return nil
}

// runDualHooks applies node i's hooks to its cotangent pair (second-order sweep).
func (t *Tape[V]) runDualHooks(i int, acc, dacc *accum[V]) error {
	ct := cr.Dual[V]{Value: acc.vals[i], Tangent: dacc.vals[i], HasTangent: dacc.state[i] != absent}
	for _, h := range t.hooks[i] {
		var err error
		switch {
		case h.dual != nil:
			ct, err = h.dual(ct)
		case !ct.HasTangent:
			// ybardot = 0, so Dh(ybar)[ybardot] = 0 whatever h is.
			ct.Value, err = h.first(ct.Value)
		default:
			return t.opErr(i, "hook", cr.Errorf(cr.ErrHVPNotSupported,
				"a tangent reaches a node with a first-order hook; a second-order sweep needs AddDualHook"))
		}
		if err != nil {
			return t.opErr(i, "hook", err)
		}
		if err := t.checkHookResult(i, ct.Value, "cotangent"); err != nil {
			return err
		}
		if ct.HasTangent {
			if err := t.checkHookResult(i, ct.Tangent, "cotangent tangent"); err != nil {
				return err
			}
		}
	}
	acc.vals[i], acc.state[i] = ct.Value, borrowed
	acc.forgetSum(i)
	if ct.HasTangent {
		dacc.vals[i], dacc.state[i] = ct.Tangent, borrowed
	} else {
		dacc.drop(i)
	}
	return nil
}

func (t *Tape[V]) checkHookResult(i int, v V, what string) error {
	if t.isNil(v) {
		return t.opErr(i, "hook", cr.Errorf(cr.ErrInvalidArgument, "hook returned a nil %s", what))
	}
	if !t.sameLayout(v, t.at(i).value) {
		return t.opErr(i, "hook", cr.Errorf(cr.ErrShapeMismatch, "hook returned a %s %s for a value %s",
			what, t.space.Describe(v), t.space.Describe(t.at(i).value)))
	}
	return nil
}

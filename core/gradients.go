package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// accumulator states of a node's slot
const (
	absent   uint8 = iota
	borrowed       // the slot holds a value the engine does not own (a seed, a rule's result)
	owned          // the slot holds a sum the engine made; Accumulate may reuse it
)

// accum holds one value slot per node and adds contributions into it without ever
// writing into storage it does not own.
type accum[V any] struct {
	space cr.Space[V]
	vals  []V
	state []uint8
}

func newAccum[V any](space cr.Space[V], n int) accum[V] {
	return accum[V]{space: space, vals: make([]V, n), state: make([]uint8, n)}
}

func (a *accum[V]) add(j int, v V) error {
	switch a.state[j] {
	case absent:
		a.vals[j], a.state[j] = v, borrowed
		return nil
	case borrowed:
		s, err := a.space.Add(a.vals[j], v)
		if err != nil {
			return err
		}
		a.vals[j], a.state[j] = s, owned
		return nil
	default:
		s, err := a.space.Accumulate(a.vals[j], v)
		if err != nil {
			return err
		}
		a.vals[j] = s
		return nil
	}
}

func (a *accum[V]) drop(j int) {
	var zero V
	a.vals[j], a.state[j] = zero, absent
}

// Gradients holds the result of a reverse sweep: the cotangent of each leaf the output
// depends on and, when the sweep ran with AllNodes, of every node it reached.
//
// The values may share storage with each other, with the seed and with values the
// rules captured; treat them as read-only (Clone before modifying).
type Gradients[V any] struct {
	tape *Tape[V]
	acc  accum[V]
}

// Of returns the cotangent at id, and false if the sweep did not produce one (id is
// not on the tape, the output does not depend on it, or it was not kept).
func (g *Gradients[V]) Of(id cr.NodeID) (V, bool) {
	var zero V
	if id.Tape() != g.tape.tag || id.Index() >= len(g.acc.vals) || g.acc.state[id.Index()] == absent {
		return zero, false
	}
	return g.acc.vals[id.Index()], true
}

// Map returns the present cotangents keyed by NodeID.
func (g *Gradients[V]) Map() map[cr.NodeID]V {
	m := make(map[cr.NodeID]V)
	for i, s := range g.acc.state {
		if s != absent {
			m[cr.NewNodeID(g.tape.tag, i)] = g.acc.vals[i]
		}
	}
	return m
}

// Len returns the number of present cotangents.
func (g *Gradients[V]) Len() int {
	n := 0
	for _, s := range g.acc.state {
		if s != absent {
			n++
		}
	}
	return n
}

// Dense returns the cotangents as a slice indexed by NodeID.Index(), as long as the
// graph at the time of the sweep. Absent entries hold the zero V, or with zeroFill
// the Space's zero shaped like the node's value (which needs the graph: an error
// wrapping ErrGraphFreed after Free).
func (g *Gradients[V]) Dense(zeroFill bool) ([]V, error) {
	out := make([]V, len(g.acc.vals))
	copy(out, g.acc.vals)
	if !zeroFill {
		for i, s := range g.acc.state {
			if s == absent {
				var zero V
				out[i] = zero
			}
		}
		return out, nil
	}
	if g.tape.freed {
		return nil, cr.ErrGraphFreed
	}
	for i, s := range g.acc.state {
		if s == absent {
			out[i] = g.tape.space.Zero(g.tape.at(i).value)
		}
	}
	return out, nil
}

package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// groupEnd returns the index of the node that carries the rule of node i: i itself,
// or the last output of i's multi-output op.
func (t *Tape[V]) groupEnd(i int) int {
	if nd := t.at(i); nd.flags&flagSibling != 0 {
		return i + int(nd.grp)
	}
	return i
}

// groupLen returns the number of outputs of the op whose last output is node i (1
// for leaves, constants and single-output ops).
func (t *Tape[V]) groupLen(i int) int { return int(t.at(i).grp) + 1 }

// ruleOf returns the rule that differentiates node i (shared by all outputs of a
// multi-output op), or nil for leaves and constants.
func (t *Tape[V]) ruleOf(i int) cr.Rule[V] {
	return t.at(t.groupEnd(i)).rule
}

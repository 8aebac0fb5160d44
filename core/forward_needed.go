package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// ForwardTangentsFor is ForwardTangents for a second-order sweep from out
// (BackwardWithTangents, BackwardWithTangentsSeed): it computes only the tangents
// that sweep can read, and leaves the others absent.
//
// A second-order sweep reads the tangents of the inputs (and, unless the rule
// says it reads input tangents only, chainrules.InputTangentsOnly, the outputs)
// of the ops whose pullback depends on the point, and never those of an affine
// op (chainrules.AffineRule: its second-order pullback is the pullback of the
// cotangent's tangent). A tangent it reads needs in turn the tangents of the
// inputs of the op that computes it, and so on down to the seeds. In kmeans'
// cost, sum_i min_j |P_i - C_j|² written as |P|² + |C|² - 2 P C^T, that
// leaves the tangents of C and Cᵀ: the n × k product, sums, scale, difference
// and minimum need none, and the forward sweep skips them.
//
// The result serves BackwardWithTangents from out (or from a node out depends on
// through affine ops only); Of reports absent, as for zero, for the tangents it
// skipped, so it is not the JVP of every node that ForwardTangents gives.
func (t *Tape[V]) ForwardTangentsFor(out cr.NodeID, seeds map[cr.NodeID]V) (*Tangents[V], error) {
	top, err := t.index(out)
	if err != nil {
		return nil, err
	}
	return t.forwardTangents(seeds, t.secondOrderNeeds(t.groupEnd(top)))
}

// secondOrderNeeds returns the mask of the nodes whose tangents a second-order
// sweep from the nodes up to top can read: the inputs of every op that is not
// affine and its outputs too unless its rule reads input tangents only
// (chainrules.InputTangentsOnly), and, transitively, the inputs of the ops that
// compute a needed tangent. One pass in decreasing order suffices: an op's inputs come
// before it, and its outputs' needs are complete when the pass reaches its last
// output, which carries the rule.
func (t *Tape[V]) secondOrderNeeds(top int) []bool {
	need := make([]bool, t.n)
	for i := top; i >= 0; i-- {
		rule := t.at(i).rule
		if rule == nil {
			continue // a leaf, a constant or a sibling output (its rule is at its op's last output)
		}
		lo := i - t.groupLen(i) + 1
		point := !affine(rule) // its second-order pullback reads tangents
		mark := point
		for j := lo; j <= i && !mark; j++ {
			mark = need[j]
		}
		if !mark {
			continue
		}
		if _, inputsOnly := rule.(cr.InputTangentsOnly); point && !inputsOnly {
			for j := lo; j <= i; j++ {
				need[j] = true
			}
		}
		for _, in := range rule.Inputs() {
			if in.Tape() == t.tag && in.Index() < lo {
				need[in.Index()] = true
			}
		}
	}
	return need
}

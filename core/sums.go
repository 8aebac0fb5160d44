package core

import cr "github.com/chainrules-go/chainrules/chainrules"

// Cotangent sums (chainrules.SumPullbackRule). In a first-order sweep on a tape
// whose Space is a chainrules.SumSpace and that has no hooks, a rule with
// PullbackSum runs it in place of Pullback: it is given the known sum of its
// cotangent, if there is one, and returns the sums it knows of its
// contributions. A contribution's sum is kept in the sweep's slot of the node it
// goes to (accum.sums) when the contribution is the slot's whole value, and
// forgotten whenever the slot's value changes any other way: a second
// contribution added (a known sum of each would not give the sum of the added
// elements bit for bit), row-sparse terms settled into it, a hook's result, the
// slot dropped. Every accum method that writes a slot forgets its sum first, so
// a sum is known only for the value it was computed from. The sums go when the
// sweep ends; Gradients never holds one.
//
// lse written from its parts is the case in point: exp's pullback makes
// dbar = ybar y and its sum in one pass, and the difference x - max(x) before it
// takes max's cotangent, -sum_i dbar_i, from that sum instead of a second pass
// over dbar.

// tradesSums reports whether a sweep of order 1 (second false) trades cotangent
// sums with the rules: the Space must define them, and no hook may see a
// cotangent whose sum the engine would then have to vouch for.
func (t *Tape[V]) tradesSums(second bool) bool {
	return !second && t.sumSpace && len(t.hooks) == 0
}

// forgetSum drops the known sum of node j's slot, if any.
func (a *accum[V]) forgetSum(j int) {
	if a.sums != nil {
		a.sums[j] = cr.CotangentSum{}
	}
}

// setSum records s as the sum of node j's slot, which holds the contribution s
// was returned with and nothing else.
func (a *accum[V]) setSum(j int, s cr.CotangentSum) {
	if a.sums == nil {
		if b := a.spare; b != nil && !b.sumsTaken {
			b.sumsTaken = true
			a.sums = b.sums[:len(a.vals):len(a.vals)]
		} else {
			a.sums = make([]cr.CotangentSum, len(a.vals))
		}
	}
	a.sums[j] = s
}

// sumOf returns the known sum of node j's slot (Known false if there is none).
func (a *accum[V]) sumOf(j int) cr.CotangentSum {
	if a.sums == nil {
		return cr.CotangentSum{}
	}
	return a.sums[j]
}

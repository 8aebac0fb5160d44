package core

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// seedAt is a cotangent seed at node i.
type seedAt[V any] struct {
	i int
	v V
}

// sweep is the one reverse sweep of the engine, from the validated seeds, whose
// nodes are at most top. With tan nil it carries cotangents (acc): the first-order
// sweep. With tan it carries cotangent pairs (ybar, ybardot) in acc and dacc, the
// second-order sweep; dseeds are then the seeds' tangents.
//
// With rows set (a first-order sweep whose result goes to the caller as Gradients)
// and a RowSpace, rules that have a RowPullback run it, and their row-sparse terms
// stay apart until a node needs its dense cotangent; a leaf without hooks keeps them
// (see Gradients.Rows).
//
// The sweep visits nodes in decreasing index order, a topological order, so a
// node's cotangent is complete when the sweep reaches it. The outputs of one op are
// consecutive nodes, and the op's rule runs at the last of them, once, with the
// cotangents of all; a single-output op, the common case, is handled in the loop
// with one-slot slices reused from op to op, and an op with several outputs by
// sweepGroup. Hooks run only when hooks is set: the transpose of a linear map
// (LinearMap) must not see them, since the forward sweep it transposes does not.
// An op that no tangent reaches (no input tangent and no cotangent tangent), or an
// affine op (chainrules.AffineRule) whose cotangent has no tangent, runs its plain
// Pullback in a second-order sweep, which is then exact.
//
// box, if not nil, holds the storage of acc's slots (a small first-order sweep
// whose slots go to the caller in box's Gradients).
func (t *Tape[V]) sweep(seeds, dseeds []seedAt[V], top int, allNodes, hooks, rows bool, tan *Tangents[V], box *gradientsBox[V]) (acc, dacc accum[V], err error) {
	acc = box.accum(t.space, top+1)
	second := tan != nil
	var rs cr.RowSpace[V] // non-nil when row-sparse terms may be kept
	if rows && !second {
		rs = t.rows
	}
	if second {
		dacc = newAccum(t.space, top+1)
	}
	for _, s := range seeds {
		if t.at(s.i).flags&flagRequires != 0 {
			if err := acc.add(s.i, s.v); err != nil {
				return acc, dacc, t.opErr(s.i, "backward", err)
			}
		}
	}
	for _, s := range dseeds {
		if t.at(s.i).flags&flagRequires != 0 {
			if err := dacc.add(s.i, s.v); err != nil {
				return acc, dacc, t.opErr(s.i, "backward", err)
			}
		}
	}
	phase := "backward"
	if second {
		phase = "second-order"
	}
	// collect keeps, for Release and RecycleSweeps, the values the sweep is done
	// with (dead) and those it cannot vouch for (kept): the seeds, and what rules
	// without chainrules.FreshStorage returned.
	collect := t.collecting(allNodes)
	if collect && t.dead == nil {
		// Room for a dead cotangent per node of a small graph, at once rather
		// than by doubling: in box for the smallest, with the kept values'.
		if box != nil {
			t.dead = box.dead[:0]
			if t.kept == nil { // a forward sweep may have kept values already
				t.kept = box.kept[:0]
			}
		} else {
			t.dead = make([]V, 0, min(top+1, 64))
		}
	}
	if collect {
		for _, s := range seeds {
			t.kept = append(t.kept, s.v)
		}
		for _, s := range dseeds {
			t.kept = append(t.kept, s.v)
		}
	}
	buf, sbuf := t.buf[:0], t.sbuf[:0]
	if sbuf == nil {
		sbuf = t.sums0[:0]
	}
	var rbuf []cr.RowContribution[V]
	sums := t.tradesSums(second)
	defer func() {
		clear(buf)
		t.buf, t.sbuf = buf[:0], sbuf[:0]
		clear(t.one[:]) // on an error return too
		acc.sums = nil  // a sum never outlives its sweep
	}()
	var dbuf []cr.DualContribution[V]
	// The cotangent of a single-output op's output, handed to its rule in a slot
	// reused from op to op (rules must not retain it), and the scratch of ops with
	// several outputs.
	ybar, has := t.one[:], t.hasOne[:]
	has[0] = true
	var group groupScratch[V]
	for i := top; i >= 0; i-- {
		nd := t.at(i)
		if nd.flags&flagSibling != 0 || nd.grp != 0 {
			// An op with several outputs runs at its last output, when the
			// cotangents of all its outputs are complete (their readers were all
			// recorded later).
			if nd.flags&flagSibling == 0 {
				if buf, dbuf, err = t.sweepGroup(i, nd, &acc, &dacc, allNodes, hooks, tan, buf, dbuf, &group); err != nil {
					return acc, dacc, err
				}
			}
			continue
		}
		if acc.rowsOf(i) != nil {
			if nd.rule == nil && !(hooks && nd.flags&flagHook != 0) && t.isFinite == nil {
				continue // a leaf keeps its row-sparse terms (Gradients.Rows)
			}
			if err := acc.settle(i, t.rows); err != nil {
				return acc, dacc, t.opErr(i, phase, err)
			}
		}
		if acc.state[i] == absent {
			continue
		}
		if hooks && nd.flags&flagHook != 0 {
			if second {
				err = t.runDualHooks(i, &acc, &dacc)
			} else {
				err = t.runHooks(i, &acc)
			}
			if err != nil {
				return acc, dacc, err
			}
		}
		if t.isFinite != nil {
			if err := t.checkCotangent(i, phase, &acc, &dacc, second); err != nil {
				return acc, dacc, err
			}
		}
		rule := nd.rule
		if rule == nil { // a leaf or a constant: its cotangent is a result
			continue
		}
		if !second || (dacc.state[i] == absent && (!tan.anyInput(rule) || affine(rule))) {
			// First order, or no tangent reaches this node's pullback: the
			// derivative of its pullback is zero (an affine op's pullback does not
			// depend on its inputs, chainrules.AffineRule).
			var (
				rr cr.RowPullbackRule[V]
				sr cr.SumPullbackRule[V]
			)
			if rs != nil {
				rr, _ = rule.(cr.RowPullbackRule[V])
			}
			if sums && rr == nil {
				sr, _ = rule.(cr.SumPullbackRule[V])
			}
			ybar[0] = acc.vals[i]
			sbuf = sbuf[:0]
			switch {
			case rr != nil:
				buf, rbuf, err = rr.RowPullback(ybar, has, buf[:0], rbuf[:0])
			case sr != nil:
				buf, sbuf, err = sr.PullbackSum(ybar[0], acc.sumOf(i), buf[:0], sbuf)
				if len(sbuf) != len(buf) {
					sbuf = sbuf[:0] // not one sum per contribution: none is used
				}
			default:
				buf, err = rule.Pullback(ybar, has, buf[:0])
			}
			if err != nil {
				return acc, dacc, t.ruleErr(i, "pullback", err)
			}
			ins := rule.Inputs()
			if rr != nil {
				if collect { // a leaf may keep these terms (Gradients.Rows)
					for _, c := range rbuf {
						t.kept = append(t.kept, c.Value)
					}
				}
				if err := t.addRowContributions(i, ins, rbuf, &acc); err != nil {
					return acc, dacc, err
				}
			}
			if collect {
				t.collectContributions(rule, buf)
			}
			// A fresh rule's contributions may be the sweep's own (own.go): the
			// cotangent it was given too, if it is dropped next (a hook that ran left
			// the slot borrowed).
			fresh := t.freshRule(rule)
			passOn := fresh && acc.state[i] == owned && !allNodes
			for k, c := range buf {
				if t.isFinite != nil {
					if err := t.checkSweep(i, "pullback", "cotangent of input "+c.Node.String(), c.Value); err != nil {
						return acc, dacc, err
					}
				}
				j := c.Node.Index()
				var in *node[V]
				if c.Node.Tape() == t.tag && j < i && slices.Contains(ins, c.Node) && !t.isNil(c.Value) {
					in = t.at(j)
				}
				if in == nil || !t.sameLayout(c.Value, in.value) {
					_, err := t.checkContribution(i, ins, c.Node, c.Value) // the error
					return acc, dacc, err
				}
				if in.flags&flagRequires != 0 {
					var err error
					first := acc.state[j] == absent
					switch {
					case fresh && t.exclusive(i, ins, buf, k, rbuf, ybar[0], passOn):
						err = acc.addOwned(j, c.Value)
					case first: // acc.add, inlined by hand on this path
						acc.vals[j], acc.state[j] = c.Value, borrowed
					default:
						err = acc.addTo(j, c.Value)
					}
					if err != nil {
						return acc, dacc, t.opErr(i, "pullback", err)
					}
					if k < len(sbuf) && sbuf[k].Known && first {
						// The slot holds this contribution alone (every other
						// write forgets the sum).
						acc.setSum(j, sbuf[k])
					}
				}
			}
			clear(rbuf)
		} else {
			sr, ok := rule.(cr.SecondOrderRule[V])
			if !ok {
				return acc, dacc, t.opErr(i, "second-order", cr.ErrHVPNotSupported)
			}
			a := t.secondOrderArgs(i, 1, &acc, &dacc, tan, has, &group)
			dbuf, err = sr.PullbackWithTangents(a, dbuf[:0])
			if err != nil {
				return acc, dacc, t.ruleErr(i, "second-order", err)
			}
			if collect {
				t.collectDuals(rule, dbuf)
			}
			if err := t.addDualContributions(i, rule.Inputs(), dbuf, &acc, &dacc); err != nil {
				return acc, dacc, err
			}
		}
		if !allNodes {
			if collect {
				t.addDead(acc.vals[i])
				if second && dacc.state[i] != absent {
					t.addDead(dacc.vals[i])
				}
			}
			acc.drop(i)
			if second {
				dacc.drop(i)
			}
		}
	}
	clear(ybar)
	return acc, dacc, nil
}

// checkCotangent is the anomaly check of node i's complete cotangent (and its
// tangent in a second-order sweep).
func (t *Tape[V]) checkCotangent(i int, phase string, acc, dacc *accum[V], second bool) error {
	if err := t.checkSweep(i, phase, "cotangent", acc.vals[i]); err != nil {
		return err
	}
	if second && dacc.state[i] != absent {
		return t.checkSweep(i, phase, "cotangent tangent", dacc.vals[i])
	}
	return nil
}

// addContributions validates the contributions of node i's pullback and adds them;
// ins are the op's inputs.
func (t *Tape[V]) addContributions(i int, ins []cr.NodeID, buf []cr.Contribution[V], acc *accum[V]) error {
	for _, c := range buf {
		if t.isFinite != nil {
			if err := t.checkSweep(i, "pullback", "cotangent of input "+c.Node.String(), c.Value); err != nil {
				return err
			}
		}
		j, err := t.checkContribution(i, ins, c.Node, c.Value)
		if err != nil {
			return err
		}
		if t.at(j).flags&flagRequires == 0 {
			continue
		}
		if err := acc.add(j, c.Value); err != nil {
			return t.opErr(i, "pullback", err)
		}
	}
	return nil
}

// addRowContributions validates the row-sparse terms of node i's pullback and keeps
// them for their nodes.
func (t *Tape[V]) addRowContributions(i int, ins []cr.NodeID, rbuf []cr.RowContribution[V], acc *accum[V]) error {
	for _, c := range rbuf {
		j, err := t.checkTarget(i, ins, c.Node, c.Value)
		if err != nil {
			return err
		}
		like := t.at(j).value
		if err := t.rows.CheckRows(like, c.Rows, c.Value); err != nil {
			return t.opErr(i, "pullback", fmt.Errorf("row contribution to input %v: %w", c.Node, err))
		}
		if t.isFinite != nil {
			if err := t.checkSweep(i, "pullback", "row cotangent of input "+c.Node.String(), c.Value); err != nil {
				return err
			}
		}
		if t.at(j).flags&flagRequires != 0 {
			acc.addRows(j, like, c)
		}
	}
	return nil
}

// addDualContributions validates the pairs of node i's second-order pullback and
// adds them.
func (t *Tape[V]) addDualContributions(i int, ins []cr.NodeID, dbuf []cr.DualContribution[V], acc, dacc *accum[V]) error {
	for _, c := range dbuf {
		if t.isFinite != nil {
			if err := t.checkDual(i, c); err != nil {
				return err
			}
		}
		if err := t.accumulate(i, ins, c.Node, c.Cotangent.Value, acc); err != nil {
			return err
		}
		if c.Cotangent.HasTangent {
			if err := t.accumulate(i, ins, c.Node, c.Cotangent.Tangent, dacc); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupScratch holds the slots a sweep hands to the rules of ops with several
// outputs and to second-order rules, reused from op to op.
type groupScratch[V any] struct {
	ybar      []V
	has       []bool
	cts, outs []cr.Dual[V]
}

// grow makes room for k outputs.
func (g *groupScratch[V]) grow(k int) {
	if len(g.ybar) < k {
		g.ybar, g.has = make([]V, k), make([]bool, k)
	}
	if len(g.cts) < k {
		g.cts, g.outs = make([]cr.Dual[V], k), make([]cr.Dual[V], k)
	}
}

// secondOrderArgs returns the arguments of the second-order rule of the op whose k
// outputs end at node i, with the outputs' cotangent flags has: the outputs'
// cotangent pairs and their values with their forward tangents, in g's slots.
func (t *Tape[V]) secondOrderArgs(i, k int, acc, dacc *accum[V], tan *Tangents[V], has []bool, g *groupScratch[V]) cr.SecondOrderArgs[V] {
	g.grow(k)
	cts, outs := g.cts[:k], g.outs[:k]
	lo := i - k + 1
	for j := lo; j <= i; j++ {
		cts[j-lo] = cr.Dual[V]{}
		if has[j-lo] {
			cts[j-lo] = cr.Dual[V]{Value: acc.vals[j], Tangent: dacc.vals[j], HasTangent: dacc.state[j] != absent}
		}
		outs[j-lo] = cr.Dual[V]{Value: t.at(j).value}
		if j < len(tan.has) && tan.has[j] {
			outs[j-lo].Tangent, outs[j-lo].HasTangent = tan.vals[j], true
		}
	}
	return cr.SecondOrderArgs[V]{Cotangents: cts, Has: has, Outputs: outs, TangentOf: tan.of}
}

// sweepGroup runs the op with several outputs whose last output is node i: its
// outputs' hooks, then its pullback (second-order pullback when a tangent reaches
// it) from the cotangents of all outputs, absent ones reported as such.
func (t *Tape[V]) sweepGroup(i int, nd *node[V], acc, dacc *accum[V], allNodes, hooks bool, tan *Tangents[V],
	buf []cr.Contribution[V], dbuf []cr.DualContribution[V], g *groupScratch[V]) ([]cr.Contribution[V], []cr.DualContribution[V], error) {
	k := int(nd.grp) + 1
	lo := i - k + 1
	second := tan != nil
	present, dpresent := false, false
	for j := lo; j <= i; j++ {
		if acc.nrows != 0 {
			if err := acc.settle(j, t.rows); err != nil {
				return buf, dbuf, t.opErr(j, "backward", err)
			}
		}
		present = present || acc.state[j] != absent
		dpresent = dpresent || (second && dacc.state[j] != absent)
	}
	if !present {
		return buf, dbuf, nil
	}
	phase := "backward"
	if second {
		phase = "second-order"
	}
	g.grow(k)
	ybar, has := g.ybar[:k], g.has[:k]
	defer clear(ybar)
	for j := lo; j <= i; j++ {
		ybar[j-lo], has[j-lo] = acc.vals[j], acc.state[j] != absent
		if !has[j-lo] {
			continue
		}
		if hooks && t.at(j).flags&flagHook != 0 {
			var err error
			if second {
				err = t.runDualHooks(j, acc, dacc)
			} else {
				err = t.runHooks(j, acc)
			}
			if err != nil {
				return buf, dbuf, err
			}
			ybar[j-lo] = acc.vals[j]
		}
		if t.isFinite != nil {
			if err := t.checkCotangent(j, phase, acc, dacc, second); err != nil {
				return buf, dbuf, err
			}
		}
	}
	rule := nd.rule
	var err error
	if !second || (!dpresent && !tan.anyInput(rule)) {
		buf, err = rule.Pullback(ybar, has, buf[:0])
		if err != nil {
			return buf, dbuf, t.ruleErr(i, "pullback", err)
		}
		if t.collecting(allNodes) {
			t.collectContributions(rule, buf)
		}
		if err := t.addContributions(i, rule.Inputs(), buf, acc); err != nil {
			return buf, dbuf, err
		}
	} else {
		sr, ok := rule.(cr.SecondOrderRule[V])
		if !ok {
			return buf, dbuf, t.opErr(i, "second-order", cr.ErrHVPNotSupported)
		}
		dbuf, err = sr.PullbackWithTangents(t.secondOrderArgs(i, k, acc, dacc, tan, has, g), dbuf[:0])
		if err != nil {
			return buf, dbuf, t.ruleErr(i, "second-order", err)
		}
		if t.collecting(allNodes) {
			t.collectDuals(rule, dbuf)
		}
		if err := t.addDualContributions(i, rule.Inputs(), dbuf, acc, dacc); err != nil {
			return buf, dbuf, err
		}
	}
	if !allNodes {
		for j := lo; j <= i; j++ {
			acc.drop(j)
			if second {
				dacc.drop(j)
			}
		}
	}
	return buf, dbuf, nil
}

// affine reports whether rule's op is affine in its inputs (chainrules.AffineRule).
func affine[V any](rule cr.Rule[V]) bool {
	a, ok := rule.(cr.AffineRule)
	return ok && a.Affine()
}

// collecting reports whether a sweep collects values for Release and
// RecycleSweeps: on a recycling tape without hooks, when the sweep keeps no
// cotangents of inner nodes for its caller.
func (t *Tape[V]) collecting(allNodes bool) bool {
	return t.recycling && !allNodes && len(t.hooks) == 0
}

// collectDuals is collectContributions for the pairs of a second-order pullback.
func (t *Tape[V]) collectDuals(rule cr.Rule[V], dbuf []cr.DualContribution[V]) {
	add := t.addKept
	if _, fresh := rule.(cr.FreshStorage); fresh {
		add = t.addDead
	}
	for _, c := range dbuf {
		add(c.Cotangent.Value)
		if c.Cotangent.HasTangent {
			add(c.Cotangent.Tangent)
		}
	}
}

// addKept collects v, which something may still refer to, for Release and
// RecycleSweeps: storage that overlaps it is not reused.
func (t *Tape[V]) addKept(v V) { t.kept = append(t.kept, v) }

// collectContributions keeps, for Release, the cotangents in buf: with the values
// that may be reused (dead) when rule promises fresh storage for them
// (chainrules.FreshStorage), and with those that may not (kept) otherwise. Every
// contribution is collected, not only the cotangents the sweep drops: one that is
// added into another, or that goes to a node needing none, is garbage too.
func (t *Tape[V]) collectContributions(rule cr.Rule[V], buf []cr.Contribution[V]) {
	add := t.addKept
	if _, fresh := rule.(cr.FreshStorage); fresh {
		add = t.addDead
	}
	for _, c := range buf {
		add(c.Value)
	}
}

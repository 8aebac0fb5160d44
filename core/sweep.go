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
// cotangents of all (a single-output op is the group of one). Hooks run only when
// hooks is set: the transpose of a linear map (LinearMap) must not see them, since
// the forward sweep it transposes does not. An op that no tangent reaches (no input
// tangent and no cotangent tangent) runs its plain Pullback in a second-order sweep,
// which is then exact.
func (t *Tape[V]) sweep(seeds, dseeds []seedAt[V], top int, allNodes, hooks, rows bool, tan *Tangents[V]) (acc, dacc accum[V], err error) {
	acc = newAccum(t.space, top+1)
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
	buf := t.buf[:0]
	var (
		rbuf []cr.RowContribution[V]
		dbuf []cr.DualContribution[V]
		// The output cotangents handed to a rule: one slot per output, reused by
		// every op of the sweep (rules must not retain them), so that a
		// single-output op costs no allocation.
		ybar = make([]V, 1)
		has  = make([]bool, 1)
		// The same for the second-order rules' cotangent pairs and output tangents.
		duals []cr.Dual[V]
	)
	defer func() {
		clear(buf)
		t.buf = buf[:0]
	}()
	for i := top; i >= 0; i-- {
		nd := t.at(i)
		if nd.flags&flagSibling != 0 {
			continue // an op runs at its last output, when all its outputs' cotangents are complete
		}
		k := int(nd.grp) + 1 // the outputs of nd's op are nodes i-k+1 .. i
		if k == 1 && len(acc.rows) != 0 && acc.rows[i] != nil {
			if nd.rule == nil && !(hooks && nd.flags&flagHook != 0) && t.isFinite == nil {
				continue // a leaf keeps its row-sparse terms (Gradients.Rows)
			}
			if err := acc.settle(i, t.rows); err != nil {
				return acc, dacc, t.opErr(i, phase, err)
			}
		}
		if k > 1 {
			if len(ybar) < k {
				ybar, has = make([]V, k), make([]bool, k)
			}
			if err := t.settleGroup(i, k, &acc); err != nil {
				return acc, dacc, err
			}
		}
		present, dpresent, err := t.gatherGroup(i, k, phase, &acc, &dacc, hooks, second, ybar, has)
		if err != nil {
			return acc, dacc, err
		}
		if !present {
			continue
		}
		rule := nd.rule
		if rule == nil { // a leaf or a constant: its cotangent is a result
			continue
		}
		ins := rule.Inputs()
		if !second || (!dpresent && !tan.anyInput(rule)) {
			// First order, or no tangent reaches this op: the derivative of its
			// pullback is zero.
			var rr cr.RowPullbackRule[V]
			if rs != nil {
				rr, _ = rule.(cr.RowPullbackRule[V])
			}
			if rr != nil {
				buf, rbuf, err = rr.RowPullback(ybar[:k], has[:k], buf[:0], rbuf[:0])
			} else {
				buf, err = rule.Pullback(ybar[:k], has[:k], buf[:0])
			}
			if err != nil {
				return acc, dacc, t.ruleErr(i, "pullback", err)
			}
			if rr != nil {
				if err := t.addRowContributions(i, ins, rbuf, &acc); err != nil {
					return acc, dacc, err
				}
				clear(rbuf)
			}
			for _, c := range buf {
				if t.isFinite != nil {
					if err := t.checkSweep(i, "pullback", "cotangent of input "+c.Node.String(), c.Value); err != nil {
						return acc, dacc, err
					}
				}
				j := c.Node.Index()
				if c.Node.Tape() != t.tag || j >= i-k+1 || !slices.Contains(ins, c.Node) || t.isNil(c.Value) || !t.sameLayout(c.Value, t.at(j).value) {
					_, err := t.checkContribution(i, ins, c.Node, c.Value) // the error
					return acc, dacc, err
				}
				if t.at(j).flags&flagRequires != 0 {
					if err := acc.add(j, c.Value); err != nil {
						return acc, dacc, t.opErr(i, "pullback", err)
					}
				}
			}
		} else {
			sr, ok := rule.(cr.SecondOrderRule[V])
			if !ok {
				return acc, dacc, t.opErr(i, "second-order", cr.ErrHVPNotSupported)
			}
			if len(duals) < 2*k {
				duals = make([]cr.Dual[V], 2*k)
			}
			a := t.secondOrderArgs(i, k, &acc, &dacc, tan, has[:k], duals[:k], duals[k:2*k])
			dbuf, err = sr.PullbackWithTangents(a, dbuf[:0])
			if err != nil {
				return acc, dacc, t.ruleErr(i, "second-order", err)
			}
			if err := t.addDualContributions(i, ins, dbuf, &acc, &dacc); err != nil {
				return acc, dacc, err
			}
		}
		if !allNodes {
			for j := i - k + 1; j <= i; j++ {
				acc.drop(j)
				if second {
					dacc.drop(j)
				}
			}
		}
	}
	return acc, dacc, nil
}

// settleGroup adds the row-sparse terms of the k outputs of the op whose last output
// is node i into their dense cotangents: an op reads dense cotangents.
func (t *Tape[V]) settleGroup(i, k int, acc *accum[V]) error {
	if len(acc.rows) == 0 {
		return nil
	}
	for j := i - k + 1; j <= i; j++ {
		if err := acc.settle(j, t.rows); err != nil {
			return t.opErr(j, "backward", err)
		}
	}
	return nil
}

// gatherGroup runs the hooks and anomaly checks of the complete cotangents of the k
// outputs of the op whose last output is node i, and puts them into ybar and has
// (ybar[m] is left as it was where has[m] is false). It reports whether some output
// has a cotangent and, in a second-order sweep, a cotangent tangent.
func (t *Tape[V]) gatherGroup(i, k int, phase string, acc, dacc *accum[V], hooks, second bool, ybar []V, has []bool) (present, dpresent bool, err error) {
	lo := i - k + 1
	for j := lo; j <= i; j++ {
		if has[j-lo] = acc.state[j] != absent; !has[j-lo] {
			continue
		}
		present = true
		if hooks && t.at(j).flags&flagHook != 0 {
			if second {
				err = t.runDualHooks(j, acc, dacc)
			} else {
				err = t.runHooks(j, acc)
			}
			if err != nil {
				return false, false, err
			}
		}
		if t.isFinite != nil {
			if err := t.checkCotangent(j, phase, acc, dacc, second); err != nil {
				return false, false, err
			}
		}
		ybar[j-lo] = acc.vals[j]
		dpresent = dpresent || (second && dacc.state[j] != absent)
	}
	return present, dpresent, nil
}

// secondOrderArgs returns the arguments of the second-order rule of the op whose k
// outputs end at node i: the outputs' cotangent pairs and their values with their
// forward tangents, in the slots cts and outs (one per output).
func (t *Tape[V]) secondOrderArgs(i, k int, acc, dacc *accum[V], tan *Tangents[V], has []bool, cts, outs []cr.Dual[V]) cr.SecondOrderArgs[V] {
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

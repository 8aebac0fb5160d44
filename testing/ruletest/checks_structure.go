package ruletest

import (
	"fmt"
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// checkPrimal records the op on a tape and compares the recorded outputs with a
// fresh evaluation. It reports false when the op cannot be applied at all.
func (c *checker[V]) checkPrimal(tape *core.Tape[V]) bool {
	var outs []cr.NodeID
	err := protect(func() error {
		outs = c.sub.record(tape, c.ids)
		return tape.Err()
	})
	if err != nil {
		c.fail(CheckApply, "", "recording the op on a tape failed", err)
		return false
	}
	recorded := make([]V, len(outs))
	for m, id := range outs {
		v, err := tape.Value(id)
		if err != nil {
			c.fail(CheckApply, "", fmt.Sprintf("reading recorded output y%d failed", m), err)
			return false
		}
		recorded[m] = v
	}
	c.ys = recorded
	c.odiff = make([]bool, len(outs))
	c.cplxY = make([]bool, len(outs))
	for m, y := range recorded {
		c.cplxY[m] = isComplex(c.space.DType(y))
		c.odiff[m] = c.sub.outputDifferentiable(m)
	}
	ys, _, err := c.apply(c.inputs)
	if err != nil {
		c.fail(CheckApply, "", "Apply failed", err)
		return false
	}
	all := make([]bool, len(ys))
	for m := range all {
		all[m] = true
	}
	c.add(CheckPrimal, "", c.compareOut(recorded, ys, all, c.tol.exactAtol, c.tol.exactRtol))
	return true
}

// checkInterfaces holds the rule to its registry entry's Forward and SecondOrder
// flags, in both directions.
func (c *checker[V]) checkInterfaces(r anyRule[V], e *cr.Entry[V]) {
	_, isF := r.forward()
	_, isS := r.second()
	fName, sName := c.sub.interfaceNames()
	var msgs []string
	if isF != e.Forward {
		msgs = append(msgs, fmt.Sprintf("entry says Forward=%v but the rule (%T) implements %s: %v", e.Forward, r.impl(), fName, isF))
	}
	if isS != e.SecondOrder {
		msgs = append(msgs, fmt.Sprintf("entry says SecondOrder=%v but the rule (%T) implements %s: %v", e.SecondOrder, r.impl(), sName, isS))
	}
	if len(msgs) > 0 {
		c.failf(CheckInterfaces, "", "%s", strings.Join(msgs, "; "))
		return
	}
	c.pass(CheckInterfaces, "")
}

// structural checks one pullback result: one contribution per differentiable input,
// shaped and typed like it, naming only the rule's inputs. what names the method.
func (c *checker[V]) structural(what string, nodes []cr.NodeID, vals [][]V) string {
	seen := make([]int, len(c.inputs))
	for i, id := range nodes {
		k := c.index(id)
		if k < 0 {
			return fmt.Sprintf("%s returned a contribution for %v, which is not among Inputs() %v", what, id, c.ids)
		}
		if !c.diff[k] {
			return fmt.Sprintf("%s returned a contribution for x%d, which the op declares non-differentiable", what, k)
		}
		seen[k]++
		for _, v := range vals[i] {
			if !slices.Equal(c.space.Shape(v), c.space.Shape(c.inputs[k])) || c.space.DType(v) != c.space.DType(c.inputs[k]) {
				return fmt.Sprintf("%s returned %s for x%d, which is %s", what, c.space.Describe(v), k, c.space.Describe(c.inputs[k]))
			}
		}
	}
	for k, n := range seen {
		switch {
		case c.diff[k] && n == 0:
			return fmt.Sprintf("%s returned %d contributions and none for differentiable input x%d (want exactly one per differentiable input)", what, len(nodes), k)
		case n > 1:
			return fmt.Sprintf("%s returned %d contributions for x%d (want exactly one)", what, n, k)
		}
	}
	return ""
}

// methodNames names the rule methods in messages.
func (c *checker[V]) methodNames() (pullback, forward, second string) {
	return "Pullback", "Forward", "PullbackWithTangents"
}

// checkStructure checks the shapes of everything a rule returns, method by method.
// A problem in one method does not stop the other methods' checks, nor the numerical
// checks that follow: those then show which method is wrong.
func (c *checker[V]) checkStructure(r anyRule[V]) {
	pbName, fwName, soName := c.methodNames()
	var fails []*Failure
	bad := func(detail string, err error) {
		fails = append(fails, &Failure{Detail: detail, Err: err})
	}
	var ins []cr.NodeID
	if err := protect(func() error { ins = r.inputs(); return nil }); err != nil {
		bad("Inputs failed", err)
	} else if !slices.Equal(ins, c.ids) {
		bad(fmt.Sprintf("Inputs() returns %v, want the %d NodeIDs passed to Apply %v", ins, len(c.ids), c.ids), nil)
	}
	ybar := c.unitOut()
	var xbar []V
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(c.cloneOut(ybar), c.sel.has(), nil)
	})
	if err != nil {
		bad(pbName+" failed", err)
	} else {
		nodes, vals := make([]cr.NodeID, len(cs)), make([][]V, len(cs))
		for i, ct := range cs {
			nodes[i], vals[i] = ct.Node, []V{ct.Value}
		}
		if msg := c.structural(pbName, nodes, vals); msg != "" {
			bad(msg, nil)
		} else if xbar, err = c.collect(cs); err != nil {
			bad("summing the contributions failed", err)
		}
	}
	dirs, present := c.joint()
	if fw, ok := r.forward(); ok {
		ydot, has := make([]V, len(c.ys)), make([]bool, len(c.ys))
		if err := protect(func() error { return fw(c.tangentOf(dirs, present), ydot, has) }); err != nil {
			bad(fwName+" failed", err)
		} else {
			for m, on := range c.sel.on {
				if on && has[m] && (!slices.Equal(c.space.Shape(ydot[m]), c.space.Shape(c.ys[m])) || c.space.DType(ydot[m]) != c.space.DType(c.ys[m])) {
					f := &Failure{Detail: fmt.Sprintf("%s returned %s for output y%d, which is %s", fwName, c.space.Describe(ydot[m]), m, c.space.Describe(c.ys[m]))}
					if c.multi {
						f.Output = c.outLabel(m)
					}
					fails = append(fails, f)
					break
				}
			}
		}
	}
	if sr, ok := r.second(); ok {
		ct := c.dualOut(c.cloneOut(ybar), c.unitOut())
		dcs, err := protected(func() ([]cr.DualContribution[V], error) {
			return sr(ct, c.sel.has(), c.tangentOf(dirs, present), nil)
		})
		if err != nil {
			bad(soName+" failed", err)
		} else {
			nodes, vals := make([]cr.NodeID, len(dcs)), make([][]V, len(dcs))
			for i, d := range dcs {
				nodes[i], vals[i] = d.Node, []V{d.Cotangent.Value}
				if d.Cotangent.HasTangent {
					vals[i] = append(vals[i], d.Cotangent.Tangent)
				}
			}
			if msg := c.structural(soName, nodes, vals); msg != "" {
				bad(msg, nil)
			} else if xbar != nil {
				xbar2, _, err := c.collectDual(dcs)
				if err != nil {
					bad("summing the contributions failed", err)
				}
				for k := range c.inputs {
					if err != nil {
						break
					}
					if f := c.compareVec(xbar2[k], xbar[k], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
						f.Input = c.label(k)
						f.Detail = fmt.Sprintf("%s cotangent (got) differs from %s (want): %s", soName, pbName, f.Detail)
						fails = append(fails, f)
						break
					}
				}
			}
		}
	}
	if len(fails) == 0 {
		c.pass(CheckStructure, "")
		return
	}
	f := fails[0]
	for _, g := range fails[1:] {
		f.Detail += "; also: " + g.Detail
		if g.Err != nil {
			f.Detail += fmt.Sprintf(" (%v)", g.Err)
		}
	}
	c.add(CheckStructure, "", f)
}

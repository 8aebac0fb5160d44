package ruletest

import (
	"errors"
	"fmt"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// checkNoDerivative checks a sample of a registry entry marked NoDerivative (argmax,
// one_hot): instead of derivatives, every way of differentiating the op must fail
// with an error wrapping chainrules.ErrNoRule. The rule's pullback, its forward
// tangent and its second-order rule (those the rule implements; checkInterfaces
// holds them to the entry's flags) are called directly, and a tape's Backward and
// ForwardTangents through the recorded op must fail the same way, so that a
// non-differentiable op can never hand back a silent zero.
func (c *checker[V]) checkNoDerivative(r anyRule[V]) {
	var msgs []string
	expect := func(what string, err error) {
		switch {
		case err == nil:
			msgs = append(msgs, what+" succeeded")
		case !errors.Is(err, cr.ErrNoRule):
			msgs = append(msgs, fmt.Sprintf("%s failed with %v, which does not wrap ErrNoRule", what, err))
		}
	}
	pbName, fwName, soName := c.methodNames()
	ybar := c.unitOut()
	dirs, present := make([]V, len(c.inputs)), make([]bool, len(c.inputs))
	for k, x := range c.inputs {
		if c.diff[k] {
			dirs[k], present[k] = c.unit(x), true
		}
	}
	_, err := c.pullbackOf(r, ybar)
	expect(pbName, err)
	if _, ok := r.forward(); ok {
		_, err = c.forwardOf(r, dirs, present)
		expect(fwName, err)
	}
	if _, ok := r.second(); ok {
		_, _, err = c.secondOf(r, c.dualOut(ybar, ybar), dirs, present)
		expect(soName, err)
	}

	// Through a tape: the first differentiable output, seeded with ybar.
	tape := core.NewTape(c.space)
	ids := make([]cr.NodeID, len(c.inputs))
	seeds := map[cr.NodeID]V{}
	for k, x := range c.inputs {
		ids[k] = tape.Leaf(c.space.Clone(x))
		if present[k] {
			seeds[ids[k]] = c.space.Clone(dirs[k])
		}
	}
	var outs []cr.NodeID
	if err := protect(func() error { outs = c.sub.record(tape, ids); return tape.Err() }); err != nil {
		c.fail(CheckNoDerivative, "", "recording the op on a tape failed", err)
		return
	}
	for m, on := range c.sel.on {
		if !on {
			continue
		}
		err := protect(func() error { _, e := tape.BackwardSeed(outs[m], c.space.Clone(ybar[m])); return e })
		expect("Tape.BackwardSeed", err)
		break
	}
	if len(seeds) > 0 {
		err := protect(func() error { _, e := tape.ForwardTangents(seeds); return e })
		expect("Tape.ForwardTangents", err)
	}
	if len(msgs) > 0 {
		c.failf(CheckNoDerivative, "", "the entry is marked NoDerivative: %s", strings.Join(msgs, "; "))
		return
	}
	c.pass(CheckNoDerivative, "")
}

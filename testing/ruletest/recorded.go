package ruletest

import (
	"errors"
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// checkRecorded checks a rule's pullback recorded with ops (chainrules.
// PullbackRecorder), which derivatives of order 3 and above are built from, on a
// tape with the op recorded at the sample (core.Tape.GradGraphSeeds):
//
//   - recorded: the recorded cotangents equal Pullback's (exact tolerance);
//   - recorded-second: their forward tangent along a random direction u, through
//     the ordinary rules of the recorded ops, equals the second-order rule's
//     xbardot (exact tolerance);
//   - recorded-third: the recorded pullback recorded once more (the ops of the
//     first recording must record theirs) gives h = grad <c, xbar(x)>, whose
//     tangent along a second direction u' contracted with u, <hdot, u>, equals the
//     finite difference of <c, xbardot(x; u)> along u' (finite-difference
//     tolerance): the third derivative against the second-order rule.
//
// and recorded-fourth (checkRecordedFourth) goes one recording deeper. It returns
// the highest order the rule reached: 2 when the rule records no pullback, 3 when
// the recording is right but cannot be recorded deep enough, 4 when the
// fourth-order check passed (the recordings nest, so higher orders are those of
// the ops used).
func (c *checker[V]) checkRecorded(r anyRule[V], noFD bool) int {
	if _, ok := r.r.(cr.PullbackRecorder[V]); !ok {
		why := "the rule does not implement chainrules.PullbackRecorder: derivatives through it stop at order 2"
		c.skip(CheckRecorded, "", why)
		c.skip(CheckRecordedSecond, "", why)
		c.skip(CheckRecordedThird, "", why)
		c.skip(CheckRecordedFourth, "", why)
		return 2
	}
	tape := core.NewTape(c.space)
	ids := make([]cr.NodeID, len(c.inputs))
	for k, x := range c.inputs {
		ids[k] = tape.Leaf(c.space.Clone(x))
	}
	outs := c.sub.record(tape, ids)
	if err := tape.Err(); err != nil {
		c.fail(CheckRecorded, "", "recording the op failed", err)
		return 2
	}
	ybar := c.unitOut()
	var os, seeds []cr.NodeID
	for m, on := range c.sel.on {
		if on {
			os, seeds = append(os, outs[m]), append(seeds, tape.Constant(c.space.Clone(ybar[m])))
		}
	}
	g, err := tape.GradGraphSeeds(os, seeds, ids...)
	if errors.Is(err, cr.ErrOrderNotSupported) {
		// A composite or defined op whose ops record no pullback.
		why := fmt.Sprintf("the recorded pullback uses an op that records none: %v", err)
		c.skip(CheckRecorded, "", why)
		c.skip(CheckRecordedSecond, "", why)
		c.skip(CheckRecordedThird, "", why)
		c.skip(CheckRecordedFourth, "", why)
		return 2
	}
	if err != nil {
		c.fail(CheckRecorded, "", "the recorded backward sweep failed", err)
		return 2
	}
	got := make([]V, len(c.inputs))
	for k, id := range g {
		if got[k], err = tape.Value(id); err != nil {
			c.fail(CheckRecorded, c.label(k), "reading the recorded cotangent failed", err)
			return 2
		}
	}
	want, err := c.pullback(ybar)
	if err != nil {
		c.fail(CheckRecorded, "", "Pullback failed", err)
		return 2
	}
	diff := func(vs []V) []V { // only the differentiable inputs are compared
		out := make([]V, len(vs))
		for k := range vs {
			out[k] = vs[k]
			if !c.diff[k] {
				out[k] = c.space.Zero(c.inputs[k])
			}
		}
		return out
	}
	if f := c.compareInputs(diff(got), diff(want), "recorded pullback (got) vs Pullback (want): "); f != nil {
		c.add(CheckRecorded, "", f)
		return 2
	}
	c.pass(CheckRecorded, "")

	// Second order through the recorded pullback.
	u, present := c.joint()
	gdot, err := c.tangentsOf(tape, ids, u, present, g)
	if err != nil {
		c.fail(CheckRecordedSecond, "", "forward sweep through the recorded pullback failed", err)
		return 3
	}
	if _, ok := r.second(); !ok {
		c.skip(CheckRecordedSecond, "", "the rule has no second-order rule to compare with")
	} else {
		_, xbardot, err := c.second(c.dualOut(ybar, nil), u, present)
		if f := c.resultFailure("PullbackWithTangents", diff(gdot), diff(xbardot), err,
			"tangent of the recorded pullback (got) vs PullbackWithTangents (want): "); f != nil {
			c.add(CheckRecordedSecond, "", f)
			return 3
		}
		c.pass(CheckRecordedSecond, "")
	}

	// Third order: the recorded pullback of the recorded pullback.
	cs := make([]V, len(c.inputs))
	var gs, cseeds []cr.NodeID
	for k, id := range g {
		if c.diff[k] {
			cs[k] = c.unit(c.inputs[k])
			gs, cseeds = append(gs, id), append(cseeds, tape.Constant(c.space.Clone(cs[k])))
		}
	}
	if len(gs) == 0 {
		c.skip(CheckRecordedThird, "", "no differentiable input")
		c.skip(CheckRecordedFourth, "", "no differentiable input")
		return 4
	}
	h, err := tape.GradGraphSeeds(gs, cseeds, ids...)
	if errors.Is(err, cr.ErrOrderNotSupported) {
		c.skip(CheckRecordedThird, "", fmt.Sprintf("order 4 through the op is not available: %v", err))
		c.skip(CheckRecordedFourth, "", fmt.Sprintf("order 4 through the op is not available: %v", err))
		return 3
	}
	if err != nil {
		c.fail(CheckRecordedThird, "", "recording the recorded pullback again failed", err)
		return 3
	}
	if noFD {
		c.skip(CheckRecordedThird, "", "finite differences are off")
		c.skip(CheckRecordedFourth, "", "finite differences are off")
		return 4
	}
	if _, ok := r.second(); !ok {
		c.skip(CheckRecordedThird, "", "the rule has no second-order rule to compare with")
		c.skip(CheckRecordedFourth, "", "the rule has no second-order rule to compare with")
		return 4
	}
	u2, present2 := c.joint()
	hdot, err := c.tangentsOf(tape, ids, u2, present2, h)
	if err != nil {
		c.fail(CheckRecordedThird, "", "forward sweep through the twice-recorded pullback failed", err)
		return 3
	}
	exact, b1, err := c.innerSum(hdot, u, present)
	if err != nil {
		c.fail(CheckRecordedThird, "", "inner product failed", err)
		return 3
	}
	// <c, xbardot(x; u)>, differentiated along u2 by finite differences.
	ref, err := c.fd(u2, present2, func(x []V, _ float64) ([]V, error) {
		_, rr, err := c.apply(x)
		if err != nil {
			return nil, err
		}
		_, xd, err := c.secondOf(rr, c.dualOut(ybar, nil), u, present)
		if err != nil {
			return nil, err
		}
		return diff(xd), nil
	})
	if err != nil {
		c.fail(CheckRecordedThird, "", "finite difference of PullbackWithTangents failed", err)
		return 3
	}
	all := make([]bool, len(c.inputs))
	for k := range all {
		all[k] = c.diff[k]
	}
	fdv, b2, err := c.innerSum(cs, ref, all)
	if err != nil {
		c.fail(CheckRecordedThird, "", "inner product failed", err)
		return 3
	}
	if f := compareScalar(exact, fdv, b1+b2, c.tol.atol, c.tol.rtol); f != nil {
		f.Detail = "<hdot, u> from the twice-recorded pullback (got) vs the finite difference of <c, PullbackWithTangents> (want); " + f.Detail
		c.add(CheckRecordedThird, "", f)
		return 3
	}
	c.pass(CheckRecordedThird, "")
	return c.checkRecordedFourth(tape, ids, h, ybar, cs, u, present, u2, present2, diff)
}

// checkRecordedFourth is recorded-fourth: with h = grad <c, xbar(x)> from the
// twice-recorded pullback, it records the pullback a third time, r = grad <h, u>,
// and compares the fourth derivative <rdot, u2> (rdot: r's tangent along a third
// direction u3) with the mixed second difference, along u2 and u3, of
// <c, xbardot(x; u)> from the second-order rule. It returns 4 when it passes.
func (c *checker[V]) checkRecordedFourth(tape *core.Tape[V], ids, h []cr.NodeID, ybar, cs, u []V, present []bool,
	u2 []V, present2 []bool, diff func([]V) []V) int {
	var hs, useeds []cr.NodeID
	for k, id := range h {
		if present[k] {
			hs, useeds = append(hs, id), append(useeds, tape.Constant(c.space.Clone(u[k])))
		}
	}
	if len(hs) == 0 {
		c.skip(CheckRecordedFourth, "", "no differentiable input")
		return 3
	}
	r, err := tape.GradGraphSeeds(hs, useeds, ids...)
	if errors.Is(err, cr.ErrOrderNotSupported) {
		c.skip(CheckRecordedFourth, "", fmt.Sprintf("order 5 through the op is not available: %v", err))
		return 3
	}
	if err != nil {
		c.fail(CheckRecordedFourth, "", "recording the pullback a third time failed", err)
		return 3
	}
	u3, present3 := c.joint()
	rdot, err := c.tangentsOf(tape, ids, u3, present3, r)
	if err != nil {
		c.fail(CheckRecordedFourth, "", "forward sweep through the thrice-recorded pullback failed", err)
		return 3
	}
	exact, bound, err := c.innerSum(rdot, u2, present2)
	if err != nil {
		c.fail(CheckRecordedFourth, "", "inner product failed", err)
		return 3
	}
	all := make([]bool, len(c.inputs))
	for k := range all {
		all[k] = c.diff[k]
	}
	s := func(x []V) (float64, error) { // <c, xbardot(x; u)>
		_, rr, err := c.apply(x)
		if err != nil {
			return 0, err
		}
		_, xd, err := c.secondOf(rr, c.dualOut(ybar, nil), u, present)
		if err != nil {
			return 0, err
		}
		v, _, err := c.innerSum(cs, diff(xd), all)
		return v, err
	}
	step := c.tol.step * math.Sqrt(math.Max(1, c.maxAbs(present)))
	mixed, err := c.fdScalar(c.inputs, u3, present3, step, func(x []V) (float64, error) {
		return c.fdScalar(x, u2, present2, step, s)
	})
	if err != nil {
		c.fail(CheckRecordedFourth, "", "the second difference of PullbackWithTangents failed", err)
		return 3
	}
	// The nested differences lose about eps |s| / step^2 to rounding: |s(x)| joins
	// the scale, so that a fourth derivative that is exactly zero (det of a 3 x 3
	// matrix) is not held to an absolute tolerance below that noise.
	s0, err := s(c.inputs)
	if err != nil {
		c.fail(CheckRecordedFourth, "", "PullbackWithTangents failed", err)
		return 3
	}
	if f := compareScalar(exact, mixed, max(bound, math.Abs(mixed), math.Abs(s0)), c.tol.atol, 10*c.tol.rtol); f != nil {
		f.Detail = "<rdot, u2> from the thrice-recorded pullback (got) vs the mixed second difference of <c, PullbackWithTangents> (want); " + f.Detail
		c.add(CheckRecordedFourth, "", f)
		return 3
	}
	c.pass(CheckRecordedFourth, "")
	return 4
}

// orderOf returns the highest order of derivative that results prove: 0 when a
// first-order check failed or none ran; 1 when the pullback passed its finite
// differences; 2 when the second-order rule did too; 3 when the third derivative
// through the recorded pullback did (recorded-third); 4 when the fourth did
// (recorded-fourth). Any failure stops the count at the order below it.
func orderOf(rs []result) int {
	passed := make(map[string]bool)
	for _, r := range rs {
		if r.fail != nil {
			switch r.check {
			case CheckSecondOrderFD, CheckHessianSymmetry, CheckSecondOrderPrimal, CheckRecorded, CheckRecordedSecond, CheckRecordedThird, CheckRecordedFourth, CheckOrder:
			default:
				return 0
			}
		}
	}
	failed := make(map[string]bool)
	for _, r := range rs {
		switch {
		case r.fail != nil:
			failed[r.check] = true
		case r.skip == "":
			passed[r.check] = true
		}
	}
	ok := func(checks ...string) bool {
		for _, ch := range checks {
			if failed[ch] || !passed[ch] {
				return false
			}
		}
		return true
	}
	switch {
	case !ok(CheckAdjointFD):
		return 0
	case !ok(CheckSecondOrderFD):
		return 1
	case !ok(CheckRecorded, CheckRecordedSecond, CheckRecordedThird):
		return 2
	case !ok(CheckRecordedFourth):
		return 3
	}
	return 4
}

// Orders runs the checks of VerifyRegistry on every entry of reg and returns the
// highest order of derivative proven for each differentiable family, the lowest
// over its samples (see CheckRegistry): 1 (pullback), 2 (second-order rule), 3 or 4
// (third and fourth derivatives through the pullback recorded with ops, against
// finite differences of the second-order rule; the recordings nest, the ops of a
// recorded pullback recording theirs, so the order goes on as far as theirs). A
// family marked NoDerivative is left out.
func Orders[V any](space cr.Space[V], reg *cr.Registry[V], cfg Config) map[string]int {
	out := make(map[string]int)
	for _, e := range reg.Entries() {
		if e.NoDerivative {
			continue
		}
		order := -1
		for _, s := range registrySamples(space, e, cfg) {
			if o := orderOf(s.results); order < 0 || o < order {
				order = o
			}
		}
		out[e.Name] = max(order, 0)
	}
	return out
}

// tangentsOf runs the forward sweep of tape with the directions dirs at the leaves
// ids (where present) and returns the tangents of nodes, one per input (zero where
// absent).
func (c *checker[V]) tangentsOf(tape *core.Tape[V], ids []cr.NodeID, dirs []V, present []bool, nodes []cr.NodeID) ([]V, error) {
	seeds := make(map[cr.NodeID]V)
	for k, on := range present {
		if on {
			seeds[ids[k]] = dirs[k]
		}
	}
	tan, err := tape.ForwardTangents(seeds)
	if err != nil {
		return nil, err
	}
	out := make([]V, len(c.inputs))
	for k, id := range nodes {
		var ok bool
		if out[k], ok = tan.Of(id); !ok {
			out[k] = c.space.Zero(c.inputs[k])
		}
	}
	return out, nil
}

package ruletest

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// checkAbsent checks, for a multi-output op, that the rule does not read the
// cotangents of the outputs outside the round (has[m] false): Pullback and
// PullbackWithTangentsMulti must give the same result whether those slots hold V's
// zero value, as the engine passes them, or garbage. Non-differentiable outputs are
// always outside.
func (c *checker[V]) checkAbsent() {
	if !c.multi {
		return
	}
	var absent []int
	for m, on := range c.sel.on {
		if !on {
			absent = append(absent, m)
		}
	}
	if len(absent) == 0 {
		return
	}
	pbName, _, soName := c.methodNames()
	names := make([]string, len(absent))
	for i, m := range absent {
		names[i] = fmt.Sprintf("y%d", m)
	}
	poison := func(v []V) []V {
		out := slices.Clone(v)
		for _, m := range absent {
			out[m] = c.space.Scale(c.space.Rand(c.ys[m], c.rng), 1e3)
		}
		return out
	}
	r, err := c.fresh()
	if err != nil {
		c.fail(CheckAbsentOutputs, "", "Apply failed", err)
		return
	}
	ybar := c.unitOut()
	want, err := c.pullbackOf(r, ybar)
	var got []V
	if err == nil {
		got, err = c.callPullback(r, poison(ybar))
	}
	what := fmt.Sprintf("%s read the cotangent of %v, which has[m] marks absent: its result changed when those slots held garbage instead of zero; ",
		pbName, names)
	if f := c.resultFailure(pbName, got, want, err, what); f != nil {
		c.add(CheckAbsentOutputs, "", f)
		return
	}
	if sr, ok := r.second(); ok {
		dirs, present := c.joint()
		ct := c.dualOut(ybar, c.unitOut())
		_, want, err := c.secondOf(r, ct, dirs, present)
		var got []V
		if err == nil {
			bad := slices.Clone(ct)
			vals, tans := poison(make([]V, len(ct))), poison(make([]V, len(ct)))
			for _, m := range absent {
				bad[m] = cr.Dual[V]{Value: vals[m], Tangent: tans[m], HasTangent: true}
			}
			var dcs []cr.DualContribution[V]
			dcs, err = protected(func() ([]cr.DualContribution[V], error) {
				return sr(bad, c.sel.has(), c.tangentOf(dirs, present), nil)
			})
			if err == nil {
				_, got, err = c.collectDual(dcs)
			}
		}
		what := fmt.Sprintf("%s read the cotangent pair of %v, which has[m] marks absent: its tangent changed when those slots held garbage instead of zero; ",
			soName, names)
		if f := c.resultFailure(soName, got, want, err, what); f != nil {
			c.add(CheckAbsentOutputs, "", f)
			return
		}
	}
	c.pass(CheckAbsentOutputs, "")
}

// callPullback runs r's pullback on exactly the slice ybar (absent slots included)
// with the round's has.
func (c *checker[V]) callPullback(r anyRule[V], ybar []V) ([]V, error) {
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(ybar, c.sel.has(), nil)
	})
	if err != nil {
		return nil, err
	}
	return c.collect(cs)
}

// checkMasked checks a cr.MaskedOp: ApplyMasked with every need[k] true, and with
// each single need[k] false, must give Apply's output and, for the inputs it needs,
// Apply's cotangents, tangent contributions and second-order pairs (the input it
// does not need has a zero tangent, as in every sweep). The masked rule must keep
// the optional interfaces of Apply's rule.
func (c *checker[V]) checkMasked() {
	if c.multi {
		return
	}
	mop, ok := c.sub.op.(cr.MaskedOp[V])
	if !ok {
		c.skip(CheckMasked, "", "the op does not implement chainrules.MaskedOp")
		return
	}
	need := make([]bool, len(c.inputs))
	for k := range need {
		need[k] = true
	}
	c.add(CheckMasked, "all", c.maskedOne(mop, need))
	for k := range c.inputs {
		need := slices.Clone(need)
		need[k] = false
		c.add(CheckMasked, fmt.Sprintf("x%d", k), c.maskedOne(mop, need))
	}
}

// maskedOne compares ApplyMasked(need) with Apply.
func (c *checker[V]) maskedOne(mop cr.MaskedOp[V], need []bool) *Failure {
	var unneeded []string
	for k, n := range need {
		if !n {
			unneeded = append(unneeded, fmt.Sprintf("x%d", k))
		}
	}
	what := "ApplyMasked with every need[k] true"
	if len(unneeded) > 0 {
		what = fmt.Sprintf("ApplyMasked with need false for %v", unneeded)
	}
	xs := make([]V, len(c.inputs))
	for k, x := range c.inputs {
		xs[k] = c.space.Clone(x)
	}
	ys := make([]V, 1)
	var sr cr.Rule[V]
	if err := protect(func() error {
		var e error
		sr, e = mop.ApplyMasked(slices.Clone(c.ids), xs, ys, slices.Clone(need))
		if e == nil && sr == nil {
			e = cr.Errorf(cr.ErrNoRule, "ApplyMasked returned a nil rule")
		}
		return e
	}); err != nil {
		return &Failure{Detail: what + " failed", Err: err}
	}
	if f := c.compareVec(ys[0], c.ys[0], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
		f.Detail = fmt.Sprintf("%s: output (got) differs from Apply's (want): %s", what, f.Detail)
		return f
	}
	mr := anyRule[V]{r: sr, ys: ys}
	ref, err := c.fresh()
	if err != nil {
		return &Failure{Detail: "Apply failed", Err: err}
	}
	// Tangents only on the needed differentiable inputs.
	dirs, present := c.joint()
	for k := range present {
		if !need[k] {
			present[k] = false
		}
	}
	cmp := func(method string, got, want []V) *Failure {
		for k := range c.inputs {
			if !need[k] || !c.diff[k] {
				continue
			}
			if f := c.compareVec(got[k], want[k], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
				f.Input = c.label(k)
				f.Detail = fmt.Sprintf("%s: %s (got) differs from Apply's rule (want): %s", what, method, f.Detail)
				return f
			}
		}
		return nil
	}
	ybar := c.unitOut()
	want, err := c.pullbackOf(ref, ybar)
	if err != nil {
		return &Failure{Detail: "Pullback of Apply's rule failed", Err: err}
	}
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return sr.Pullback([]V{c.space.Clone(ybar[0])}, []bool{true}, nil)
	})
	if err != nil {
		return &Failure{Detail: what + ": Pullback failed", Err: err}
	}
	count := make([]int, len(c.inputs))
	for _, ct := range cs {
		if k := c.index(ct.Node); k >= 0 {
			count[k]++
		}
	}
	for k, n := range count {
		if need[k] && c.diff[k] && n != 1 {
			return &Failure{Input: c.label(k), Detail: fmt.Sprintf("%s: Pullback returned %d contributions for x%d, which is needed (want exactly one)", what, n, k)}
		}
	}
	got, err := c.collect(cs)
	if err != nil {
		return &Failure{Detail: what + ": Pullback's contributions", Err: err}
	}
	if f := cmp("Pullback", got, want); f != nil {
		return f
	}
	if _, ok := ref.forward(); ok {
		if _, ok := mr.forward(); !ok {
			return &Failure{Detail: what + ": the rule lacks Forward, which Apply's rule has"}
		}
		want, err := c.forwardOf(ref, dirs, present)
		var got []V
		if err == nil {
			got, err = c.forwardOf(mr, dirs, present)
		}
		if err != nil {
			return &Failure{Detail: what + ": Forward failed", Err: err}
		}
		if f := c.compareVec(got[0], want[0], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
			f.Detail = fmt.Sprintf("%s: Forward (got) differs from Apply's rule (want): %s", what, f.Detail)
			return f
		}
	}
	if _, ok := ref.second(); ok {
		if _, ok := mr.second(); !ok {
			return &Failure{Detail: what + ": the rule lacks PullbackWithTangents, which Apply's rule has"}
		}
		ct := c.dualOut(ybar, c.unitOut())
		wantV, wantT, err := c.secondOf(ref, ct, dirs, present)
		var gotV, gotT []V
		if err == nil {
			gotV, gotT, err = c.secondOf(mr, ct, dirs, present)
		}
		if err != nil {
			return &Failure{Detail: what + ": PullbackWithTangents failed", Err: err}
		}
		if f := cmp("PullbackWithTangents cotangent", gotV, wantV); f != nil {
			return f
		}
		if f := cmp("PullbackWithTangents tangent", gotT, wantT); f != nil {
			return f
		}
	}
	return nil
}

// checkRetain checks that Apply keeps neither the slice in nor the slice x it is
// given (it may keep their elements): after Apply, the caller reuses both slices,
// overwriting their elements; the rule must still report the original NodeIDs from
// Inputs and differentiate at the original point.
func (c *checker[V]) checkRetain() {
	pbName, _, soName := c.methodNames()
	in := slices.Clone(c.ids)
	xs := make([]V, len(c.inputs))
	for k, x := range c.inputs {
		xs[k] = c.space.Clone(x)
	}
	r, err := protected(func() (anyRule[V], error) {
		_, r, e := c.sub.apply(in, xs)
		return r, e
	})
	if err != nil {
		c.fail(CheckRetain, "", "Apply failed", err)
		return
	}
	var before, after []cr.NodeID
	if err := protect(func() error { before = slices.Clone(r.inputs()); return nil }); err != nil {
		c.fail(CheckRetain, "", "Inputs failed", err)
		return
	}
	// The caller's next use of its slices: other NodeIDs, other values.
	for k := range in {
		in[k] = cr.NewNodeID(^uint32(0), 1<<30+k)
	}
	for k := range xs {
		xs[k] = c.space.Scale(c.space.Rand(xs[k], c.rng), 3)
	}
	if err := protect(func() error { after = r.inputs(); return nil }); err != nil {
		c.fail(CheckRetain, "", "Inputs failed", err)
		return
	}
	if !slices.Equal(after, before) {
		c.failf(CheckRetain, "", "Inputs() returns %v after the caller overwrote the slice in it passed to Apply, %v before: the rule keeps the slice in instead of a copy", after, before)
		return
	}
	if c.sel.count() == 0 {
		c.pass(CheckRetain, "")
		return
	}
	// The reference is a fresh rule's; when that fails, the other checks say why.
	ybar := c.unitOut()
	want, err := c.pullback(ybar)
	if err != nil {
		c.skip(CheckRetain, "", pbName+" of a fresh rule failed: see the other checks")
		return
	}
	got, err := c.pullbackOf(r, ybar)
	if err != nil {
		c.fail(CheckRetain, "", pbName+" failed after the caller overwrote the slices it passed to Apply", err)
		return
	}
	const differs = " differs from a fresh rule's after the caller overwrote the elements of the slice x it passed to Apply: the rule keeps the slice x instead of its elements; "
	if f := c.compareInputs(got, want, pbName+differs); f != nil {
		c.add(CheckRetain, "", f)
		return
	}
	if _, ok := r.second(); ok {
		dirs, present := c.joint()
		ct := c.dualOut(ybar, nil)
		_, want, err := c.second(ct, dirs, present)
		if err != nil {
			c.skip(CheckRetain, "", soName+" of a fresh rule failed: see the other checks")
			return
		}
		_, got, err := c.secondOf(r, ct, dirs, present)
		if err != nil {
			c.fail(CheckRetain, "", soName+" failed after the caller overwrote the slices it passed to Apply", err)
			return
		}
		if f := c.compareInputs(got, want, soName+differs); f != nil {
			c.add(CheckRetain, "", f)
			return
		}
	}
	c.pass(CheckRetain, "")
}

// checkKink compares the rule with the documented derivative at a kink: the
// pullback with Kink.Pullback, the forward tangent with Kink.JVP, and the
// second-order rule with the same convention (without input tangents its tangent is
// J^* ybardot, so it must be Kink.Pullback(ybardot)) and with Kink.SecondOrder.
func (c *checker[V]) checkKink(k *Kink[V]) {
	for _, ch := range []string{CheckAdjointFD, CheckJacobian, CheckForwardFD, CheckSecondOrderFD} {
		c.skip(ch, "", "at a kink ("+k.Reason+"): see the kink check")
	}
	if k.Pullback == nil && k.JVP == nil && k.SecondOrder == nil {
		c.failf(CheckKink, "", "Kink %q has none of Pullback, JVP and SecondOrder", k.Reason)
		return
	}
	r, err := c.fresh()
	if err != nil {
		c.fail(CheckKink, "", "Apply failed", err)
		return
	}
	_, isF := r.forward()
	_, isS := r.second()
	// expected returns Kink.Pullback(ybar), or false if it is not set.
	expected := func(ybar V) ([]V, bool, *Failure) {
		if k.Pullback == nil {
			return nil, false, nil
		}
		want, err := protected(func() ([]V, error) {
			return k.Pullback(c.space.Clone(ybar))
		})
		if err != nil {
			return nil, false, &Failure{Detail: "Kink.Pullback failed", Err: err}
		}
		return want, true, nil
	}
	// compare compares per-input values with one value per differentiable input.
	compare := func(got, want []V, what string) *Failure {
		j := 0
		for i := range c.inputs {
			if !c.diff[i] {
				continue
			}
			if j >= len(want) {
				return &Failure{Detail: fmt.Sprintf("%s returned %d values, want one per differentiable input", what, len(want))}
			}
			if f := c.compareVec(got[i], want[j], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
				f.Input, f.Detail = c.label(i), fmt.Sprintf("%s at %s; %s", what, k.Reason, f.Detail)
				return f
			}
			j++
		}
		return nil
	}
	f := func() *Failure {
		for d := range c.cfg.Directions {
			ybar := c.unitOut()
			if want, ok, f := expected(ybar[0]); f != nil {
				return f
			} else if ok {
				got, err := c.pullback(ybar)
				if err != nil {
					return &Failure{Detail: "Pullback failed", Err: err}
				}
				if f := compare(got, want, fmt.Sprintf("Pullback (got) vs documented Kink.Pullback (want), direction %d,", d)); f != nil {
					return f
				}
			}
			dirs, present := c.joint()
			full := slices.Clone(dirs)
			for i := range full {
				if !present[i] {
					full[i] = c.space.Zero(c.inputs[i])
				}
			}
			if isF && k.JVP != nil {
				got, err := c.forward(dirs, present)
				if err != nil {
					return &Failure{Detail: "Forward failed", Err: err}
				}
				want, err := protected(func() (V, error) {
					return k.JVP(slices.Clone(full))
				})
				if err != nil {
					return &Failure{Detail: "Kink.JVP failed", Err: err}
				}
				if f := c.compareVec(got[0], want, c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
					f.Detail = fmt.Sprintf("Forward (got) vs documented Kink.JVP (want) at %s, direction %d; %s", k.Reason, d, f.Detail)
					return f
				}
			}
			if !isS {
				if k.SecondOrder != nil {
					return &Failure{Detail: "Kink.SecondOrder is set but the rule does not implement chainrules.SecondOrderRule"}
				}
				continue
			}
			// The convention: with no input tangent, xbardot = J^* ybardot.
			ybardot := c.unitOut()
			none := make([]bool, len(c.inputs))
			if want, ok, f := expected(ybardot[0]); f != nil {
				return f
			} else if ok {
				_, got, err := c.second(c.dualOut(ybar, ybardot), dirs, none)
				if err != nil {
					return &Failure{Detail: "PullbackWithTangents failed", Err: err}
				}
				if f := compare(got, want, fmt.Sprintf("PullbackWithTangents tangent without input tangents (got) vs Kink.Pullback(ybardot) (want), direction %d: its J^* ybardot must follow the documented convention", d)); f != nil {
					return f
				}
			}
			if k.SecondOrder != nil {
				_, got, err := c.second(c.dualOut(ybar, ybardot), dirs, present)
				if err != nil {
					return &Failure{Detail: "PullbackWithTangents failed", Err: err}
				}
				want, err := protected(func() ([]V, error) {
					return k.SecondOrder(c.space.Clone(ybar[0]), c.space.Clone(ybardot[0]), slices.Clone(full))
				})
				if err != nil {
					return &Failure{Detail: "Kink.SecondOrder failed", Err: err}
				}
				if f := compare(got, want, fmt.Sprintf("PullbackWithTangents tangent (got) vs documented Kink.SecondOrder (want), direction %d,", d)); f != nil {
					return f
				}
			}
		}
		return nil
	}()
	c.add(CheckKink, "", f)
}

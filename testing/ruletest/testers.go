package ruletest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// sampleResults are the results of one registry sample; name is empty for results
// about the entry as a whole.
type sampleResults struct {
	name    string
	results []result
}

// registrySamples checks one registry entry at each of its samples.
func registrySamples[V any](space cr.Space[V], e cr.Entry[V], cfg Config) []sampleResults {
	cfg.Kink = nil
	rcfg, _ := cfg.resolve(nil)
	entryFail := func(detail string, err error) []sampleResults {
		return []sampleResults{{results: []result{{check: CheckSamples, fail: &Failure{
			Rule: e.Name, Check: CheckSamples, Detail: detail, Err: err, Seed: rcfg.Seed}}}}}
	}
	if e.Samples == nil {
		return entryFail("no samples: the entry's Samples function is nil", nil)
	}
	var samples []cr.Sample[V]
	if err := protect(func() error {
		samples = e.Samples(rand.New(rand.NewPCG(rcfg.Seed, rcfg.Seed^0x9E3779B97F4A7C15)))
		return nil
	}); err != nil {
		return entryFail("Samples failed", err)
	}
	if len(samples) == 0 {
		return entryFail("no samples: Samples returned none", nil)
	}
	out := make([]sampleResults, 0, len(samples))
	seen := map[string]int{}
	for i, s := range samples {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("sample%d", i)
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		rule := e.Name + "/" + name
		var pre []result
		fail := func(detail string) {
			pre = append(pre, result{check: CheckInterfaces, fail: &Failure{Rule: rule, Check: CheckInterfaces, Detail: detail, Seed: rcfg.Seed}})
		}
		sub := subject[V]{op: s.Op}
		if s.Op == nil {
			fail("sample has no Op")
			out = append(out, sampleResults{name: name, results: pre})
			continue
		}
		var opName string
		if err := protect(func() error { opName = sub.name(); return nil }); err != nil {
			fail(fmt.Sprintf("Name failed: %v", err))
			out = append(out, sampleResults{name: name, results: pre})
			continue
		}
		if opName != e.Name {
			fail(fmt.Sprintf("sample op is named %q, entry %q", opName, e.Name))
		}
		if e.Arity != cr.Variadic && len(s.Inputs) != e.Arity {
			fail(fmt.Sprintf("sample has %d inputs, entry arity is %d", len(s.Inputs), e.Arity))
		}
		if len(e.DTypes) > 0 {
			for k, x := range s.Inputs {
				if d := space.DType(x); !slices.Contains(e.DTypes, d) {
					fail(fmt.Sprintf("input x%d has dtype %s, not among the entry's DTypes %v", k, d, e.DTypes))
				}
			}
		}
		rs := append(pre, run(space, sub, rule, s.Inputs, cfg, &e)...)
		if o := orderOf(rs); cfg.MinOrder > 0 && !e.NoDerivative && o < cfg.MinOrder {
			rs = append(rs, result{check: CheckOrder, fail: &Failure{Rule: rule, Check: CheckOrder, Seed: rcfg.Seed,
				Detail: fmt.Sprintf("the rules are proven to order %d at this sample, Config.MinOrder is %d (see the skipped checks for why)", o, cfg.MinOrder)}})
		}
		out = append(out, sampleResults{name: name, results: rs})
	}
	return out
}

// protect runs f, turning a panic into an error: rules under test are user code and
// the checker must report, not crash, when one of them panics.
func protect(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

// protected is protect for a function with a result: f's result and error, or the
// zero T and the panic as an error.
func protected[T any](f func() (T, error)) (v T, err error) {
	err = protect(func() error {
		var e error
		v, e = f()
		return e
	})
	return v, err
}

// checker holds the state of one run: the op, its inputs and the resolved settings.
type checker[V any] struct {
	space  cr.Space[V]
	sub    subject[V]
	multi  bool
	rule   string
	inputs []V
	ids    []cr.NodeID
	diff   []bool
	cfg    Config
	tol    tolerances
	rng    *rand.Rand
	ys     []V    // the recorded outputs
	odiff  []bool // odiff[m]: output m is differentiable
	cplxY  []bool // cplxY[m]: output m is complex
	cplx   []bool // cplx[k]: input k is complex
	hasEl  bool
	// sel is the current round of output cotangents; op-level checks run with every
	// differentiable output selected and an empty name.
	sel selection
	res []result
}

// run performs every check of one op at one point.
func run[V any](space cr.Space[V], sub subject[V], sample string, inputs []V, cfg Config, entry *cr.Entry[V]) []result {
	name := sample
	dtypes := make([]string, len(inputs))
	for k, x := range inputs {
		dtypes[k] = space.DType(x)
	}
	cfg, tol := cfg.resolve(dtypes)
	c := &checker[V]{space: space, sub: sub, rule: name, cfg: cfg, tol: tol,
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0xD1B54A32D192ED03))}
	if !sub.valid() {
		c.failf(CheckApply, "", "op is nil")
		return c.res
	}
	c.multi = sub.isMulti() // NumOutputs: only once the op is known not to be nil
	if name == "" {
		if err := protect(func() error { c.rule = sub.name(); return nil }); err != nil {
			c.fail(CheckApply, "", "Name failed", err)
			return c.res
		}
	}
	// Private copies: a rule that mutates what it is given must not spoil the
	// reference values of the other checks.
	c.inputs = make([]V, len(inputs))
	c.cplx = make([]bool, len(inputs))
	c.diff = make([]bool, len(inputs))
	tape := core.NewTape(space)
	c.ids = make([]cr.NodeID, len(inputs))
	for k, x := range inputs {
		c.inputs[k] = space.Clone(x)
		c.cplx[k] = isComplex(dtypes[k])
		c.diff[k] = sub.differentiable(k)
		c.ids[k] = tape.Leaf(space.Clone(x))
	}
	c.hasEl = true
	for _, x := range c.inputs {
		if _, ok := elements(space, x); !ok {
			c.hasEl = false
		}
	}

	if !c.checkPrimal(tape) {
		return c.res
	}
	rule, err := c.fresh()
	if err != nil {
		c.fail(CheckApply, "", "Apply failed", err)
		return c.res
	}
	c.sel = selection{on: slices.Clone(c.odiff)}
	if entry != nil {
		c.guard(CheckInterfaces, func() { c.checkInterfaces(rule, entry) })
		if entry.NoDerivative {
			// Not differentiable by design: the derivatives must all be a typed error.
			c.guard(CheckNoDerivative, func() { c.checkNoDerivative(rule) })
			return c.res
		}
	}
	c.guard(CheckMasked, c.checkMasked)
	c.guard(CheckRetain, c.checkRetain)
	if !c.multi {
		c.guard(CheckRows, func() { c.checkRows(rule) })
		c.guard(CheckSums, func() { c.checkSums(rule) })
	}

	kink, kinkOK := cfg.Kink.(*Kink[V])
	noFD := cfg.Kink != nil || cfg.NoFiniteDifferences
	fdChecks := []string{CheckAdjointFD, CheckJacobian, CheckForwardFD, CheckSecondOrderFD}
	switch {
	case cfg.Kink != nil && c.multi:
		c.failf(CheckKink, "", "Config.Kink applies to single-output ops, not to ops with several outputs")
		kinkOK = false
	case cfg.Kink != nil && !kinkOK:
		c.failf(CheckKink, "", "Config.Kink is a %T, want a *ruletest.Kink[%T]", cfg.Kink, c.ys[0])
	}
	sels := c.selections()
	if len(sels) == 0 {
		c.skip(CheckStructure, "", "no output of the op is differentiable")
		return c.res
	}
	for _, s := range sels {
		c.sel = s
		c.guard(CheckStructure, func() { c.checkStructure(rule) })
		c.guard(CheckAbsentOutputs, c.checkAbsent)
		c.guard(CheckMutation, c.checkMutation)
		c.guard(CheckRepeat, c.checkRepeat)
		c.guard(CheckLinearity, c.checkLinearity)
		switch {
		case kinkOK:
			c.guard(CheckKink, func() { c.checkKink(kink) })
		case cfg.Kink != nil:
			for _, ch := range fdChecks {
				c.skip(ch, "", "Config.Kink is set")
			}
		case cfg.NoFiniteDifferences:
			for _, ch := range fdChecks {
				c.skip(ch, "", "Config.NoFiniteDifferences")
			}
		default:
			c.guard(CheckAdjointFD, c.checkAdjointFD)
			c.guard(CheckJacobian, c.checkJacobian)
		}
		fIface, sIface := c.sub.interfaceNames()
		if _, ok := rule.forward(); !c.skipUnimplemented(ok, fIface, noFD, CheckForwardFD, CheckForwardAdjoint) {
			c.guard(CheckForwardFD, func() { c.checkForward(rule, noFD) })
		}
		if _, ok := rule.second(); !c.skipUnimplemented(ok, sIface, noFD, CheckSecondOrderFD, CheckHessianSymmetry) {
			c.guard(CheckSecondOrderFD, func() { c.checkSecondOrder(rule, noFD) })
		}
		c.guard(CheckRecorded, func() { c.checkRecorded(rule, noFD) })
	}
	return c.res
}

// skipUnimplemented reports whether the rule lacks an optional method (implemented
// is false; iface names the method's interface) and if so skips the method's checks:
// other, and fd, its finite-difference check, unless noFD (then fd does not run).
func (c *checker[V]) skipUnimplemented(implemented bool, iface string, noFD bool, fd, other string) bool {
	if implemented {
		return false
	}
	why := "the rule does not implement " + iface
	if !noFD {
		c.skip(fd, "", why)
	}
	c.skip(other, "", why)
	return true
}

// guard runs one check, turning a panic of the checker itself (on a value of the
// rule's making that the Space cannot handle, say a nil tensor) into a failure of
// that check.
func (c *checker[V]) guard(check string, f func()) {
	if err := protect(func() error { f(); return nil }); err != nil {
		c.fail(check, "", "the check could not complete on the values the rule returned", err)
	}
}

// selections returns the rounds of output cotangents: for a single-output op its
// output; for a multi-output op each differentiable output alone and, when there
// are several, all of them together.
func (c *checker[V]) selections() []selection {
	if !c.multi {
		return []selection{{on: []bool{true}}}
	}
	var out []selection
	all := make([]bool, len(c.ys))
	for m, d := range c.odiff {
		if !d {
			continue
		}
		on := make([]bool, len(c.ys))
		on[m], all[m] = true, true
		out = append(out, selection{name: fmt.Sprintf("y%d", m), on: on})
	}
	if len(out) > 1 {
		out = append(out, selection{name: "all", on: all})
	}
	return out
}

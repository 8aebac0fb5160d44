package ruletest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// result is the outcome of one check on one input: a failure, a skip, or a pass.
// output names the round of output cotangents ("y1", "all") for a multi-output op.
type result struct {
	check, output, input string
	fail                 *Failure
	skip                 string
}

// report turns results into subtests of t (or plain errors when t is not a
// *testing.T and cannot have subtests). A check that does not apply gets no
// subtest: its reason is logged on t (t.Log), which go test prints only with -v or
// when t fails, so that a passing check prints nothing.
func report(t testing.TB, rs []result) {
	t.Helper()
	for _, r := range rs {
		name := r.check
		if r.output != "" {
			name += "/" + r.output
		}
		if r.input != "" {
			name += "/" + r.input
		}
		if r.fail == nil && r.skip != "" {
			t.Logf("%s: not checked: %s", name, r.skip)
			continue
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(name, func(t *testing.T) {
				t.Helper()
				emit(t, r)
			})
			continue
		}
		emit(t, r)
	}
}

func emit(t testing.TB, r result) {
	t.Helper()
	if r.fail != nil {
		t.Error(r.fail)
	}
}

func joinResults(rs []result) error {
	var errs []error
	for _, r := range rs {
		if r.fail != nil {
			errs = append(errs, r.fail)
		}
	}
	return errors.Join(errs...)
}

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

// label names input k in failures: "x1 float64[3 4]".
func (c *checker[V]) label(k int) string {
	return fmt.Sprintf("x%d %s", k, c.space.Describe(c.inputs[k]))
}

// outLabel names output m in failures: "y1 float64[3 4]".
func (c *checker[V]) outLabel(m int) string {
	return fmt.Sprintf("y%d %s", m, c.space.Describe(c.ys[m]))
}

// selLabel names the outputs of the current round, or "" for a single-output op.
func (c *checker[V]) selLabel() string {
	if !c.multi {
		return ""
	}
	var parts []string
	for m, on := range c.sel.on {
		if on {
			parts = append(parts, c.outLabel(m))
		}
	}
	return strings.Join(parts, " and ")
}

func (c *checker[V]) pass(check, input string) {
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input})
}

func (c *checker[V]) skip(check, input, why string) {
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input, skip: why})
}

func (c *checker[V]) add(check, input string, f *Failure) {
	if f == nil {
		c.pass(check, input)
		return
	}
	f.Rule, f.Check, f.Seed = c.rule, check, c.cfg.Seed
	if f.Output == "" {
		f.Output = c.selLabel()
	}
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input, fail: f})
}

func (c *checker[V]) fail(check, input, detail string, err error) {
	c.add(check, input, &Failure{Input: c.inputLabel(input), Detail: detail, Err: err})
}

func (c *checker[V]) failf(check, input, format string, args ...any) {
	c.fail(check, input, fmt.Sprintf(format, args...), nil)
}

// inputLabel expands a subtest input name "x1" into its failure label.
func (c *checker[V]) inputLabel(input string) string {
	var k int
	if _, err := fmt.Sscanf(input, "x%d", &k); err == nil && k >= 0 && k < len(c.inputs) && input == fmt.Sprintf("x%d", k) {
		return c.label(k)
	}
	return input
}

// apply evaluates the op at x (private clones), recovering panics.
func (c *checker[V]) apply(x []V) (ys []V, rule anyRule[V], err error) {
	xs := make([]V, len(x))
	for k, v := range x {
		xs[k] = c.space.Clone(v)
	}
	err = protect(func() error {
		var e error
		ys, rule, e = c.sub.apply(slices.Clone(c.ids), xs)
		return e
	})
	return ys, rule, err
}

// fresh returns a new rule at the checked point. The checks other than repeat and
// mutation each use a fresh rule, so that a rule with state that leaks between
// calls fails the repeat check and nothing else.
func (c *checker[V]) fresh() (anyRule[V], error) {
	_, r, err := c.apply(c.inputs)
	return r, err
}

// index maps a NodeID to its input position, or -1.
func (c *checker[V]) index(id cr.NodeID) int {
	return slices.Index(c.ids, id)
}

// collect sums contributions into per-input cotangents (zero where absent).
func (c *checker[V]) collect(cs []cr.Contribution[V]) ([]V, error) {
	out := make([]V, len(c.inputs))
	for k, x := range c.inputs {
		out[k] = c.space.Zero(x)
	}
	for _, ct := range cs {
		k := c.index(ct.Node)
		if k < 0 {
			return nil, cr.Errorf(cr.ErrMissingNode, "contribution for %v, which is not an input", ct.Node)
		}
		s, err := c.space.Add(out[k], ct.Value)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// ---- output cotangents: one slot per output, meaningful where c.sel.on ----

// unitOut returns random cotangents on the selected outputs, of unit norm in
// total; the other slots hold V's zero value, as the engine passes them.
func (c *checker[V]) unitOut() []V {
	out := make([]V, len(c.ys))
	total := 0.0
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Rand(c.ys[m], c.rng)
			n := c.norm(out[m])
			total += n * n
		}
	}
	if total > 0 && !math.IsInf(total, 0) && !math.IsNaN(total) {
		for m, on := range c.sel.on {
			if on {
				out[m] = c.space.Scale(out[m], 1/math.Sqrt(total))
			}
		}
	}
	return out
}

// zeroOut returns zero cotangents on the selected outputs.
func (c *checker[V]) zeroOut() []V {
	out := make([]V, len(c.ys))
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Zero(c.ys[m])
		}
	}
	return out
}

// cloneOut returns private copies of the selected slots of v.
func (c *checker[V]) cloneOut(v []V) []V {
	out := make([]V, len(v))
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Clone(v[m])
		}
	}
	return out
}

// combineOut returns a v + b w on the selected outputs.
func (c *checker[V]) combineOut(a float64, v []V, b float64, w []V) ([]V, error) {
	out := make([]V, len(v))
	for m, on := range c.sel.on {
		if on {
			s, err := c.space.Add(c.space.Scale(v[m], a), c.space.Scale(w[m], b))
			if err != nil {
				return nil, err
			}
			out[m] = s
		}
	}
	return out, nil
}

// innerOut returns sum_m <a_m, b_m> over the selected outputs and the sum of the
// Cauchy-Schwarz bounds.
func (c *checker[V]) innerOut(a, b []V) (v, bound float64, err error) {
	return c.innerSum(a, b, c.sel.on)
}

// dualOut returns the cotangent pairs (v_m, t_m) of the selected outputs (t nil:
// tangents absent).
func (c *checker[V]) dualOut(v, t []V) []cr.Dual[V] {
	ct := make([]cr.Dual[V], len(c.ys))
	for m, on := range c.sel.on {
		if on {
			ct[m].Value = v[m]
			if t != nil {
				ct[m].Tangent, ct[m].HasTangent = t[m], true
			}
		}
	}
	return ct
}

// mulIOut returns i times the complex selected slots of v, the real ones as they
// are, or false when no selected output is complex.
func (c *checker[V]) mulIOut(v []V) ([]V, bool) {
	out, any := slices.Clone(v), false
	for m, on := range c.sel.on {
		if on && c.cplxY[m] {
			if iv, ok := c.mulI(v[m]); ok {
				out[m], any = iv, true
			}
		}
	}
	return out, any
}

// variantsOut returns ybar and, when a selected output is complex, its imaginary
// variant (see mulIOut).
func (c *checker[V]) variantsOut(v []V) []variant[[]V] {
	out := []variant[[]V]{{v: v, name: "real"}}
	if iv, ok := c.mulIOut(v); ok {
		out = append(out, variant[[]V]{v: iv, name: "imaginary"})
	}
	return out
}

// compareOut compares the selected slots of got and want (on: which slots) as
// compareVec does, naming the first output that differs.
func (c *checker[V]) compareOut(got, want []V, on []bool, atol, rtol float64) *Failure {
	for m, o := range on {
		if !o {
			continue
		}
		if f := c.compareVec(got[m], want[m], atol, rtol, 0); f != nil {
			if c.multi {
				f.Output = c.outLabel(m)
			}
			return f
		}
	}
	return nil
}

// ---- rule calls on private copies ----

// pullback runs a fresh rule's pullback on a private copy of ybar.
func (c *checker[V]) pullback(ybar []V) ([]V, error) {
	r, err := c.fresh()
	if err != nil {
		return nil, err
	}
	return c.pullbackOf(r, ybar)
}

func (c *checker[V]) pullbackOf(r anyRule[V], ybar []V) ([]V, error) {
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(c.cloneOut(ybar), c.sel.has(), nil)
	})
	if err != nil {
		return nil, err
	}
	return c.collect(cs)
}

// tangentOf serves the tangents dirs (nil entries absent) by NodeID.
func (c *checker[V]) tangentOf(dirs []V, present []bool) cr.TangentOf[V] {
	return func(id cr.NodeID) (V, bool) {
		var zero V
		k := c.index(id)
		if k < 0 || !present[k] {
			return zero, false
		}
		return c.space.Clone(dirs[k]), true
	}
}

// forward runs a fresh rule's forward method; the selected outputs' tangents come
// back, absent ones as zeros.
func (c *checker[V]) forward(dirs []V, present []bool) ([]V, error) {
	r, err := c.fresh()
	if err != nil {
		return nil, err
	}
	return c.forwardOf(r, dirs, present)
}

func (c *checker[V]) forwardOf(r anyRule[V], dirs []V, present []bool) ([]V, error) {
	fw, ok := r.forward()
	if !ok {
		return nil, cr.Errorf(cr.ErrNoRule, "fresh rule has no forward method")
	}
	ydot, has := make([]V, len(c.ys)), make([]bool, len(c.ys))
	if err := protect(func() error { return fw(c.tangentOf(dirs, present), ydot, has) }); err != nil {
		return nil, err
	}
	out := make([]V, len(c.ys))
	for m, on := range c.sel.on {
		switch {
		case !on:
		case has[m]:
			out[m] = ydot[m]
		default:
			out[m] = c.space.Zero(c.ys[m])
		}
	}
	return out, nil
}

// second runs a fresh rule's second-order method and returns per-input cotangents
// and their tangents (absent tangents as zeros).
func (c *checker[V]) second(ct []cr.Dual[V], dirs []V, present []bool) (xbar, xbardot []V, err error) {
	r, err := c.fresh()
	if err != nil {
		return nil, nil, err
	}
	return c.secondOf(r, ct, dirs, present)
}

func (c *checker[V]) secondOf(r anyRule[V], ct []cr.Dual[V], dirs []V, present []bool) (xbar, xbardot []V, err error) {
	sr, ok := r.second()
	if !ok {
		return nil, nil, cr.Errorf(cr.ErrHVPNotSupported, "rule has no second-order method")
	}
	cp := make([]cr.Dual[V], len(ct))
	for m, d := range ct {
		if !c.sel.on[m] {
			continue
		}
		cp[m] = cr.Dual[V]{Value: c.space.Clone(d.Value), HasTangent: d.HasTangent}
		if d.HasTangent {
			cp[m].Tangent = c.space.Clone(d.Tangent)
		}
	}
	dcs, err := protected(func() ([]cr.DualContribution[V], error) {
		return sr(cp, c.sel.has(), c.tangentOf(dirs, present), nil)
	})
	if err != nil {
		return nil, nil, err
	}
	return c.collectDual(dcs)
}

// collectDual sums dual contributions into per-input cotangents and tangents.
func (c *checker[V]) collectDual(dcs []cr.DualContribution[V]) (xbar, xbardot []V, err error) {
	vals := make([]cr.Contribution[V], 0, len(dcs))
	tans := make([]cr.Contribution[V], 0, len(dcs))
	for _, d := range dcs {
		vals = append(vals, cr.Contribution[V]{Node: d.Node, Value: d.Cotangent.Value})
		if d.Cotangent.HasTangent {
			tans = append(tans, cr.Contribution[V]{Node: d.Node, Value: d.Cotangent.Tangent})
		}
	}
	if xbar, err = c.collect(vals); err != nil {
		return nil, nil, err
	}
	if xbardot, err = c.collect(tans); err != nil {
		return nil, nil, err
	}
	return xbar, xbardot, nil
}

// unit returns a random value like v scaled to unit norm (zero stays zero).
func (c *checker[V]) unit(like V) V {
	return c.normalize(c.space.Rand(like, c.rng))
}

func (c *checker[V]) normalize(v V) V {
	n := c.norm(v)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return v
	}
	return c.space.Scale(v, 1/n)
}

func (c *checker[V]) norm(v V) float64 {
	s, err := c.space.Inner(v, v)
	if err != nil {
		return math.NaN()
	}
	return math.Sqrt(math.Max(s, 0))
}

// mulI returns i*v for a complex value, through element access (see ElementSpace).
func (c *checker[V]) mulI(v V) (V, bool) {
	e, ok := elements(c.space, v)
	if !ok {
		return v, false
	}
	for i, z := range e {
		e[i] = complex(-imag(z), real(z))
	}
	w, ok, err := fromElements(c.space, v, e)
	return w, ok && err == nil
}

// variants returns v and, for a complex value, i*v: the real and imaginary
// directions of PyTorch's gradcheck.
func (c *checker[V]) variants(v V, complexValue bool) []variant[V] {
	out := []variant[V]{{v: v, name: "real"}}
	if complexValue {
		if iv, ok := c.mulI(v); ok {
			out = append(out, variant[V]{v: iv, name: "imaginary"})
		}
	}
	return out
}

type variant[V any] struct {
	v    V
	name string
}

// maxAbs returns max_i |x_i| over the inputs that move, falling back to the RMS
// value when elements are not accessible.
func (c *checker[V]) maxAbs(present []bool) float64 {
	m := 0.0
	for k, x := range c.inputs {
		if !present[k] {
			continue
		}
		if e, ok := elements(c.space, x); ok {
			for _, z := range e {
				m = math.Max(m, absC(z))
			}
			continue
		}
		if n := c.space.Size(x); n > 0 {
			m = math.Max(m, c.norm(x)/math.Sqrt(float64(n)))
		}
	}
	return m
}

// stencil is the 5-point central difference: f'(0) ~ sum_j w_j f(s_j h) / h.
var stencil = [4]struct{ s, w float64 }{{-2, 1.0 / 12}, {-1, -8.0 / 12}, {1, 8.0 / 12}, {2, -1.0 / 12}}

// fd returns the 5-point central difference of g(x + e dirs) at e = 0, where g maps
// the moved inputs to a list of values (the output, or the pullback per input).
func (c *checker[V]) fd(dirs []V, present []bool, g func(x []V, e float64) ([]V, error)) ([]V, error) {
	h := c.tol.step * math.Sqrt(math.Max(1, c.maxAbs(present)))
	var acc []V
	for _, st := range stencil {
		e := st.s * h
		x := make([]V, len(c.inputs))
		for k, xk := range c.inputs {
			x[k] = xk
			if present[k] {
				moved, err := c.space.Add(xk, c.space.Scale(dirs[k], e))
				if err != nil {
					return nil, err
				}
				x[k] = moved
			}
		}
		vals, err := g(x, e)
		if err != nil {
			return nil, fmt.Errorf("evaluating at step %g: %w", e, err)
		}
		if acc == nil {
			acc = make([]V, len(vals))
			for i, v := range vals {
				acc[i] = c.space.Zero(v)
			}
		}
		if len(vals) != len(acc) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%d values at one step, %d at another", len(vals), len(acc))
		}
		for i, v := range vals {
			if acc[i], err = c.space.Add(acc[i], c.space.Scale(v, st.w/h)); err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

// fdJVP returns J dirs by finite differences of the primal, for the selected
// outputs (the other slots hold V's zero value).
func (c *checker[V]) fdJVP(dirs []V, present []bool) ([]V, error) {
	vals, err := c.fd(dirs, present, func(x []V, _ float64) ([]V, error) {
		ys, _, err := c.apply(x)
		if err != nil {
			return nil, err
		}
		var out []V
		for m, on := range c.sel.on {
			if !on {
				continue
			}
			y := ys[m]
			if !slices.Equal(c.space.Shape(y), c.space.Shape(c.ys[m])) || c.space.DType(y) != c.space.DType(c.ys[m]) {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "output %d is %s near the point, %s at it", m, c.space.Describe(y), c.space.Describe(c.ys[m]))
			}
			out = append(out, y)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]V, len(c.ys))
	i := 0
	for m, on := range c.sel.on {
		if on {
			out[m] = vals[i]
			i++
		}
	}
	return out, nil
}

// only returns directions with v at input k and nothing elsewhere.
func (c *checker[V]) only(k int, v V) ([]V, []bool) {
	dirs, present := make([]V, len(c.inputs)), make([]bool, len(c.inputs))
	dirs[k], present[k] = v, true
	return dirs, present
}

// joint returns a random direction over every differentiable input, of unit norm
// in total.
func (c *checker[V]) joint() ([]V, []bool) {
	dirs, present := make([]V, len(c.inputs)), make([]bool, len(c.inputs))
	total := 0.0
	for k, x := range c.inputs {
		if c.diff[k] {
			dirs[k], present[k] = c.space.Rand(x, c.rng), true
			n := c.norm(dirs[k])
			total += n * n
		}
	}
	if total > 0 {
		for k := range dirs {
			if present[k] {
				dirs[k] = c.space.Scale(dirs[k], 1/math.Sqrt(total))
			}
		}
	}
	return dirs, present
}

// jointI returns i times a joint direction on its complex inputs, or false if no
// input is complex.
func (c *checker[V]) jointI(dirs []V, present []bool) ([]V, bool) {
	out, any := make([]V, len(dirs)), false
	for k, v := range dirs {
		out[k] = v
		if present[k] && c.cplx[k] {
			if iv, ok := c.mulI(v); ok {
				out[k], any = iv, true
			}
		}
	}
	return out, any
}

// compareInputs compares got[k] with want[k] for every input k at the exact
// tolerance, as compareVec does, and returns the first difference, labelled with its
// input and its Detail prefixed with what; nil if they agree.
func (c *checker[V]) compareInputs(got, want []V, what string) *Failure {
	for k := range c.inputs {
		if f := c.compareVec(got[k], want[k], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
			f.Input, f.Detail = c.label(k), what+f.Detail
			return f
		}
	}
	return nil
}

// resultFailure is the failure of a call of method that returned the per-input
// values got or err: "method failed" with err, or else compareInputs(got, want,
// what). It is nil if the call succeeded and got agrees with want.
func (c *checker[V]) resultFailure(method string, got, want []V, err error, what string) *Failure {
	if err != nil {
		return &Failure{Detail: method + " failed", Err: err}
	}
	return c.compareInputs(got, want, what)
}

// compareVec compares the rule's value got with the reference want:
// |got_i - want_i| <= atol + rtol * max(||got||_inf, ||want||_inf, floor), naming
// the worst element. floor is a known bound on the size of the terms want was
// summed from, when cancellation may make want small. It returns nil when they
// agree.
func (c *checker[V]) compareVec(got, want V, atol, rtol, floor float64) *Failure {
	if !slices.Equal(c.space.Shape(got), c.space.Shape(want)) || c.space.DType(got) != c.space.DType(want) {
		return &Failure{Detail: fmt.Sprintf("rule gives %s, reference is %s", c.space.Describe(got), c.space.Describe(want))}
	}
	g, okG := elements(c.space, got)
	w, okW := elements(c.space, want)
	if !okG || !okW {
		d, err := c.space.Add(got, c.space.Scale(want, -1))
		if err != nil {
			return &Failure{Detail: "cannot subtract", Err: err}
		}
		nd, ng, nw := c.norm(d), c.norm(got), c.norm(want)
		n := float64(max(1, c.space.Size(got)))
		if !(nd <= atol*math.Sqrt(n)+rtol*max(ng, nw, floor)) {
			return &Failure{Detail: fmt.Sprintf("||got - want|| = %.3g with ||got|| = %.6g, ||want|| = %.6g", nd, ng, nw)}
		}
		return nil
	}
	// The scale comes from the finite values alone: an infinity in got must not
	// make every difference pass (Inf <= Inf). A non-finite value where the
	// reference differs is a failure.
	scale, worst, at := floor, -1.0, 0
	for i := range g {
		if a := absC(g[i]); !math.IsInf(a, 0) && !math.IsNaN(a) {
			scale = math.Max(scale, a)
		}
		if a := absC(w[i]); !math.IsInf(a, 0) && !math.IsNaN(a) {
			scale = math.Max(scale, a)
		}
		d := absC(g[i] - w[i])
		if g[i] == w[i] {
			d = 0
		}
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if d > worst {
			worst, at = d, i
		}
	}
	if len(g) == 0 || (!math.IsInf(worst, 0) && worst <= atol+rtol*scale) {
		return nil
	}
	var idx []int
	if shape := c.space.Shape(got); len(shape) > 0 {
		idx = unravel(at, shape)
	}
	return &Failure{Index: idx, Got: g[at], Want: w[at], HasValues: true,
		Detail: fmt.Sprintf("tolerance %.3g + %.3g * %.6g", atol, rtol, scale)}
}

// compareScalar compares got with want at tolerance atol + rtol * scale. A
// non-finite got (or want) that differs from the other is a failure whatever the
// scale, which an infinite rule value would make infinite too.
func compareScalar(got, want, scale, atol, rtol float64) *Failure {
	d := math.Abs(got - want)
	if got == want || (!math.IsInf(d, 0) && !math.IsNaN(d) && d <= atol+rtol*scale) {
		return nil
	}
	return &Failure{Got: complex(got, 0), Want: complex(want, 0), HasValues: true,
		Detail: fmt.Sprintf("tolerance %.3g + %.3g * %.6g", atol, rtol, scale)}
}

// inner returns <a, b> and ||a|| ||b||, its Cauchy-Schwarz bound.
func (c *checker[V]) inner(a, b V) (v, bound float64, err error) {
	v, err = c.space.Inner(a, b)
	return v, c.norm(a) * c.norm(b), err
}

// innerSum returns sum_k <a_k, b_k> over the present inputs and the sum of bounds.
func (c *checker[V]) innerSum(a, b []V, present []bool) (v, bound float64, err error) {
	for k := range a {
		if !present[k] {
			continue
		}
		x, bd, e := c.inner(a[k], b[k])
		if e != nil {
			return 0, 0, e
		}
		v, bound = v+x, bound+bd
	}
	return v, bound, nil
}

func formatValue(z complex128) string {
	if imag(z) == 0 {
		return fmt.Sprintf("%.10g", real(z))
	}
	return fmt.Sprintf("(%.10g%+.10gi)", real(z), imag(z))
}

func absC(z complex128) float64 {
	if imag(z) == 0 {
		return math.Abs(real(z))
	}
	return cmplx.Abs(z)
}

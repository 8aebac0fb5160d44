package ruletest

import (
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Check runs every applicable check of op at inputs and reports failures through t,
// with one subtest per check and input ("adjoint-fd/x0", "structure"). Checks that do
// not apply (no ForwardRule, no SecondOrderRule, no finite differences) get no
// subtest: the reason is logged on t ("jacobian: not checked: ..."), which go test
// prints only with -v or when the test fails, so a passing check is quiet.
//
// An op with several outputs y_m = f_m(x), m < op.NumOutputs(), is checked once per
// round of output cotangents: each differentiable output alone (the others'
// cotangents absent, has[m] false) and all differentiable outputs together with
// random cotangents on each. A round checks the map x -> (y_m) over its outputs m,
// so that for instance adjoint-fd compares
//
//	sum_m <ybar_m, J_mk v>_fd   with   <Pullback(ybar, has)_k, v>,
//
// forward-fd compares each output's tangent ydot_m with its finite difference, and
// second-order-fd differentiates Pullback along x and the cotangents. Subtests are
// named check/round/input ("adjoint-fd/y1/x0", "structure/all") and failures name
// the outputs in Failure.Output. The primal check compares every output.
//
// Outputs the op declares non-differentiable (chainrules.PartialOp) never receive a
// cotangent and their tangents are ignored. One more check for several outputs,
// absent-outputs, requires that Pullback and PullbackWithTangents do not read the
// cotangent of an output whose has[m] is false: their results must not change when
// those slots hold garbage instead of zero. Config.Kink does not apply to ops with
// several outputs (setting it fails the kink check).
func Check[V any](t testing.TB, space cr.Space[V], op cr.Op[V], inputs []V, cfg Config) {
	t.Helper()
	report(t, run(space, subject[V]{op: op}, "", inputs, cfg, nil))
}

// Verify runs the checks of Check and returns their failures joined with
// errors.Join; each is a *Failure wrapping ErrCheckFailed. It returns nil when the
// rules pass.
func Verify[V any](space cr.Space[V], op cr.Op[V], inputs []V, cfg Config) error {
	return joinResults(run(space, subject[V]{op: op}, "", inputs, cfg, nil))
}

// CheckRegistry checks every entry of reg at each of its samples, with one subtest
// per entry and sample (named "entry/sample") and the subtests of Check below them,
// and logs the order of derivative each entry is proven to (see Orders;
// Config.MinOrder makes a lower order a failure).
// It also holds each entry to its Forward and SecondOrder flags, to its Arity and
// DTypes, and fails an entry without samples ("no samples") or a sample without an
// Op. An entry marked NoDerivative (chainrules.Entry) is not differentiated:
// its samples get the primal, interfaces, masked and retain checks and the
// no-derivative check, which requires every derivative through the op (its rule's
// methods, a tape's Backward and ForwardTangents sweeps) to fail with an error wrapping
// chainrules.ErrNoRule. The samples are drawn from a generator seeded with
// cfg.Seed; cfg.Kink is ignored (samples stay away from kinks by design: see the
// package doc).
func CheckRegistry[V any](t *testing.T, space cr.Space[V], reg *cr.Registry[V], cfg Config) {
	t.Helper()
	for _, e := range reg.Entries() {
		t.Run(e.Name, func(t *testing.T) {
			order := -1
			for _, s := range registrySamples(space, e, cfg) {
				if o := orderOf(s.results); order < 0 || o < order {
					order = o
				}
				if s.name == "" {
					report(t, s.results)
					continue
				}
				t.Run(s.name, func(t *testing.T) { report(t, s.results) })
			}
			if !e.NoDerivative {
				t.Logf("%s: derivatives proven to order %d", e.Name, max(order, 0))
			}
		})
	}
}

// VerifyRegistry runs the checks of CheckRegistry and returns their failures joined
// with errors.Join, or nil.
func VerifyRegistry[V any](space cr.Space[V], reg *cr.Registry[V], cfg Config) error {
	var all []result
	for _, e := range reg.Entries() {
		for _, s := range registrySamples(space, e, cfg) {
			all = append(all, s.results...)
		}
	}
	return joinResults(all)
}

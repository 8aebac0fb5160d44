package ruletest

import (
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Check runs every applicable check of op at inputs and reports failures through t,
// with one subtest per check and input ("adjoint-fd/x0", "structure"). Checks that do
// not apply (no ForwardRule, no SecondOrderRule, no finite differences) are
// reported as skipped subtests.
func Check[V any](t testing.TB, space cr.Space[V], op cr.Op[V], inputs []V, cfg Config) {
	t.Helper()
	report(t, run(space, op, "", inputs, cfg, nil))
}

// Verify runs the checks of Check and returns their failures joined with
// errors.Join; each is a *Failure wrapping ErrCheckFailed. It returns nil when the
// rules pass.
func Verify[V any](space cr.Space[V], op cr.Op[V], inputs []V, cfg Config) error {
	return joinResults(run(space, op, "", inputs, cfg, nil))
}

// CheckRegistry checks every entry of reg at each of its samples, with one subtest
// per entry and sample (named "entry/sample") and the subtests of Check below them.
// It also holds each entry to its Forward and SecondOrder flags, to its Arity and
// DTypes, and fails an entry without samples ("no samples"). The samples are drawn
// from a generator seeded with cfg.Seed; cfg.Kink is ignored.
func CheckRegistry[V any](t *testing.T, space cr.Space[V], reg *cr.Registry[V], cfg Config) {
	t.Helper()
	for _, e := range reg.Entries() {
		t.Run(e.Name, func(t *testing.T) {
			for _, s := range registrySamples(space, e, cfg) {
				if s.name == "" {
					report(t, s.results)
					continue
				}
				t.Run(s.name, func(t *testing.T) { report(t, s.results) })
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

package ruletest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/chainrules-go/chainrules/chainrules"
)

// result is the outcome of one check on one input: a failure, a skip, or a pass.
type result struct {
	check, input string
	fail         *Failure
	skip         string
}

func report(t testing.TB, rs []result) {
	t.Helper()
	for _, r := range rs {
		name := r.check
		if r.input != "" {
			name += "/" + r.input
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(name, func(t *testing.T) { emit(t, r) })
			continue
		}
		emit(t, r)
	}
}

func emit(t testing.TB, r result) {
	t.Helper()
	switch {
	case r.fail != nil:
		t.Error(r.fail)
	case r.skip != "":
		if _, ok := t.(*testing.T); ok {
			t.Skip(r.skip)
		}
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

type sampleResults struct {
	name    string
	results []result
}

func registrySamples[V any](space chainrules.Space[V], e chainrules.Entry[V], cfg Config) []sampleResults {
	return nil
}

func run[V any](space chainrules.Space[V], op chainrules.Op[V], sample string, inputs []V, cfg Config, entry *chainrules.Entry[V]) []result {
	return nil
}

func formatValue(z complex128) string {
	if imag(z) == 0 {
		return fmt.Sprintf("%.10g", real(z))
	}
	return fmt.Sprintf("%.10g", z)
}

func absC(z complex128) float64 {
	if imag(z) == 0 {
		return math.Abs(real(z))
	}
	return cmplx.Abs(z)
}

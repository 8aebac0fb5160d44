package ruletest_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// failures returns every *ruletest.Failure in err.
func failures(t *testing.T, err error) []*ruletest.Failure {
	t.Helper()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]*ruletest.Failure, 0, len(errs))
	for _, e := range errs {
		var f *ruletest.Failure
		require.ErrorAs(t, e, &f)
		out = append(out, f)
	}
	return out
}

func verifyM(op cr.Op[float64], x []float64, cfg ruletest.Config) func() error {
	return func() error { return ruletest.Verify(cr.Float64Space{}, op, x, cfg) }
}

// r = 1.3, th = 0.4: the first quadrant, away from its boundaries.
var polarPoint = []float64{1.3, 0.4}

func TestMultiCorrectRulesPass(t *testing.T) {
	full := ruletest.Config{FullJacobianMaxSize: 16}
	tests := []struct {
		name   string
		verify func() error
	}{
		{"hand-written rule with a non-differentiable output", verifyM(toXY{}, polarPoint, full)},
		{"first order only", verifyM(toXY{firstOrder: true}, polarPoint, full)},
		{"a tangent reported for the non-differentiable output is ignored", verifyM(toXY{mut: toXYMutation{tangentQ: true}}, polarPoint, full)},
		{"Define with several outputs", verifyM(mulSinDef(false), []float64{0.7, -1.2}, full)},
		{"Composite with several outputs", verifyM(mulSinComposite(), []float64{0.7, -1.2}, full)},
		{"no finite differences", verifyM(toXY{}, polarPoint, ruletest.Config{NoFiniteDifferences: true})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.NoError(t, tc.verify())
		})
	}
}

// TestMultiMutantsAreCaught feeds the checker multi-output rules with one mistake
// each. The mistake must be caught by the check meant for it, with the failure
// naming the output concerned, and no check outside want and also may fail.
func TestMultiMutantsAreCaught(t *testing.T) {
	cfg := ruletest.Config{}
	tests := []struct {
		name   string
		verify func() error
		want   string
		output string // a failure of want names this output; "" for op-level checks
		also   []string
	}{
		{"pullback ignores output 1's cotangent", verifyM(toXY{mut: toXYMutation{ignoreY: true}, firstOrder: true}, polarPoint, cfg),
			ruletest.CheckAdjointFD, "y1", nil},
		{"pullback and second order ignore output 1's cotangent", verifyM(toXY{mut: toXYMutation{ignoreY: true}}, polarPoint, cfg),
			ruletest.CheckAdjointFD, "y1", []string{ruletest.CheckForwardAdjoint, ruletest.CheckSecondOrderFD, ruletest.CheckSecondOrderPrimal}},
		{"sign flip on output 0", verifyM(toXY{mut: toXYMutation{flipX: true}}, polarPoint, cfg),
			ruletest.CheckAdjointFD, "y0", []string{ruletest.CheckForwardAdjoint, ruletest.CheckSecondOrderFD, ruletest.CheckSecondOrderPrimal}},
		{"wrong second-order term for output 1", verifyM(toXY{mut: toXYMutation{wrongSecondY: true}}, polarPoint, cfg),
			ruletest.CheckSecondOrderFD, "y1", []string{ruletest.CheckHessianSymmetry, ruletest.CheckSecondOrderPrimal}},
		{"forward rule wrong on output 1", verifyM(toXY{mut: toXYMutation{wrongFwdY: true}}, polarPoint, cfg),
			ruletest.CheckForwardFD, "y1", []string{ruletest.CheckForwardAdjoint}},
		{"pullback reads the non-differentiable output's cotangent", verifyM(toXY{mut: toXYMutation{readQ: true}}, polarPoint, cfg),
			ruletest.CheckAbsentOutputs, "y0", nil},
		{"pullback writes into has", verifyM(toXY{mut: toXYMutation{mutateHas: true}}, polarPoint, cfg),
			ruletest.CheckMutation, "y0", nil},
		{"Define with several outputs, pullback with a wrong sign on output 1", verifyM(mulSinDef(true), []float64{0.7, -1.2}, cfg),
			ruletest.CheckAdjointFD, "y1", []string{ruletest.CheckForwardFD, ruletest.CheckForwardAdjoint, ruletest.CheckSecondOrderFD, ruletest.CheckSecondOrderPrimal}},
		{"NumOutputs reports fewer outputs than Apply writes", verifyM(toXY{wrongCount: true}, polarPoint, cfg),
			ruletest.CheckApply, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.verify()
			require.Error(t, err, "the mutant passed every check")
			got := failedChecks(t, err)
			assert.Contains(t, got, tc.want, "%v", err)
			allowed := append([]string{tc.want}, tc.also...)
			for _, c := range got {
				assert.Contains(t, allowed, c, "unexpected check failed: %v", err)
			}
			if tc.output != "" {
				named := false
				for _, f := range failures(t, err) {
					if f.Check == tc.want && strings.HasPrefix(f.Output, tc.output+" ") {
						named = true
					}
				}
				assert.True(t, named, "no %s failure names output %s: %v", tc.want, tc.output, err)
			}
			t.Log(err)
		})
	}
}

// A wrong output is reported in its own round and in the round of all outputs
// together, and the other output's round passes.
func TestMultiRoundsNameTheOutput(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, toXY{mut: toXYMutation{ignoreY: true}, firstOrder: true}, polarPoint, ruletest.Config{Seed: 7})
	fs := failures(t, err)
	require.NotEmpty(t, fs)
	for _, f := range fs {
		assert.Equal(t, ruletest.CheckAdjointFD, f.Check)
		assert.Contains(t, []string{"y1 float64[]", "y0 float64[] and y1 float64[]"}, f.Output)
		assert.Contains(t, f.Error(), "["+f.Output+"]")
	}
	assert.Contains(t, fs[0].Error(), "ruletest: toxy: adjoint-fd [y1 float64[]] [x0 float64[]]")
}

// Check reports a multi-output op through t: subtests named check/round/input for
// a correct rule, errors for a wrong one.
func TestCheckMulti(t *testing.T) {
	ruletest.Check(t, cr.Float64Space{}, toXY{}, polarPoint, ruletest.Config{})
	rec := &recorder{TB: t}
	ruletest.Check(rec, cr.Float64Space{}, toXY{mut: toXYMutation{wrongFwdY: true}}, polarPoint, ruletest.Config{})
	assert.NotEmpty(t, rec.errs)
}

func TestMultiKinkIsRejected(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, toXY{}, polarPoint, ruletest.Config{Kink: &ruletest.Kink[float64]{Reason: "x"}})
	assert.Equal(t, []string{ruletest.CheckKink}, failedChecks(t, err))
}

func TestMultiNilOp(t *testing.T) {
	err := ruletest.Verify[float64](cr.Float64Space{}, nil, polarPoint, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckApply}, failedChecks(t, err))
}

func multiRegistry(t *testing.T, samples func(*rand.Rand) []cr.Sample[float64], forward bool) *cr.Registry[float64] {
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "toxy", Arity: 2, DTypes: []string{"float64"},
		Forward: forward, SecondOrder: true, Samples: samples}))
	return reg
}

func TestMultiRegistry(t *testing.T) {
	ok := func(*rand.Rand) []cr.Sample[float64] {
		return []cr.Sample[float64]{{Name: "first quadrant", Op: toXY{}, Inputs: polarPoint}}
	}
	ruletest.CheckRegistry(t, cr.Float64Space{}, multiRegistry(t, ok, true), ruletest.Config{})
	assert.NoError(t, ruletest.VerifyRegistry(cr.Float64Space{}, multiRegistry(t, ok, true), ruletest.Config{}))

	// The entry's flags are held against the rule's interfaces.
	err := ruletest.VerifyRegistry(cr.Float64Space{}, multiRegistry(t, ok, false), ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckInterfaces}, failedChecks(t, err))
	assert.ErrorContains(t, err, "chainrules.ForwardRule")

	// A wrong multi-output sample is caught and named "entry/sample".
	bad := func(*rand.Rand) []cr.Sample[float64] {
		return []cr.Sample[float64]{{Name: "q", Op: toXY{mut: toXYMutation{wrongFwdY: true}}, Inputs: polarPoint}}
	}
	err = ruletest.VerifyRegistry(cr.Float64Space{}, multiRegistry(t, bad, true), ruletest.Config{})
	assert.Contains(t, failedChecks(t, err), ruletest.CheckForwardFD)
	assert.ErrorContains(t, err, "toxy/q: forward-fd [y1 float64[]]")

	// A sample without an op (Sample.Multi, and with it a sample setting both, is gone).
	err = ruletest.VerifyRegistry(cr.Float64Space{}, multiRegistry(t, func(*rand.Rand) []cr.Sample[float64] {
		return []cr.Sample[float64]{{Inputs: polarPoint}}
	}, true), ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckInterfaces}, failedChecks(t, err), "no op")
	assert.ErrorContains(t, err, "no Op")
}

// Errors of Verify for a multi-output op are values as for a single-output one.
func TestMultiErrorsIs(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, toXY{mut: toXYMutation{flipX: true}}, polarPoint, ruletest.Config{})
	assert.True(t, errors.Is(err, ruletest.ErrCheckFailed))
	assert.True(t, slices.ContainsFunc(failures(t, err), func(f *ruletest.Failure) bool { return f.Output != "" }))
}

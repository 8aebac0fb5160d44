package ruletest_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// failedChecks returns the Check of every *ruletest.Failure in err.
func failedChecks(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var checks []string
	for _, e := range errs {
		var f *ruletest.Failure
		require.ErrorAs(t, e, &f)
		require.ErrorIs(t, e, ruletest.ErrCheckFailed)
		if !slices.Contains(checks, f.Check) {
			checks = append(checks, f.Check)
		}
	}
	slices.Sort(checks)
	return checks
}

func rng() *rand.Rand { return rand.New(rand.NewPCG(3, 4)) }

func randT(dt tensor.DType, shape ...int) *tensor.Dense { return tensor.RandN(rng(), dt, shape...) }

func verifyF(op cr.Op[float64], x []float64, cfg ruletest.Config) func() error {
	return func() error { return ruletest.Verify(cr.Float64Space{}, op, x, cfg) }
}

func verifyT(op cr.Op[*tensor.Dense], x []*tensor.Dense, cfg ruletest.Config) func() error {
	return func() error { return ruletest.Verify(tensor.Space{}, op, x, cfg) }
}

func TestCorrectRulesPass(t *testing.T) {
	full := ruletest.Config{FullJacobianMaxSize: 64}
	tests := []struct {
		name   string
		verify func() error
	}{
		{"sin", verifyF(sinOp(nil), []float64{0.7}, full)},
		{"sin large x", verifyF(sinOp(nil), []float64{250.3}, ruletest.Config{})},
		{"mul", verifyF(mulOp(nil), []float64{1.3, -0.4}, full)},
		{"scaleby non-differentiable input", verifyF(scaleByOp{}, []float64{1.3, -0.4}, full)},
		{"relu away from 0", verifyF(reluOp(false), []float64{-0.5}, ruletest.Config{})},
		{"exp float64", verifyT(expOp(nil, false), []*tensor.Dense{randT(tensor.Float64, 2, 3)}, full)},
		{"exp complex128", verifyT(expOp(nil, false), []*tensor.Dense{randT(tensor.Complex128, 2, 3)}, full)},
		{"exp scalar tensor", verifyT(expOp(nil, false), []*tensor.Dense{tensor.Scalar(0.3)}, full)},
		{"exp first order only", verifyT(expOp(nil, true), []*tensor.Dense{randT(tensor.Float64, 4)}, ruletest.Config{})},
		{"exp big (directional only)", verifyT(expOp(nil, false), []*tensor.Dense{randT(tensor.Float64, 40, 50)}, ruletest.Config{})},
		{"matmul float64", verifyT(matmulOp(false), []*tensor.Dense{randT(tensor.Float64, 2, 3), randT(tensor.Float64, 3, 4)}, full)},
		{"matmul complex128", verifyT(matmulOp(false), []*tensor.Dense{randT(tensor.Complex128, 3, 3), randT(tensor.Complex128, 3, 2)}, full)},
		{"relu at kink with its documented rule", verifyF(reluOp(false), []float64{0}, ruletest.Config{Kink: &ruletest.Kink[float64]{
			Reason:   "relu at 0: subgradient 0",
			Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
			JVP:      func([]float64) (float64, error) { return 0, nil },
		}})},
		{"no finite differences", verifyF(sinOp(nil), []float64{0.7}, ruletest.Config{NoFiniteDifferences: true})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.NoError(t, tc.verify())
		})
	}
}

// TestMutantsAreCaught feeds the checker deliberately wrong rules. Each must be
// caught by the check meant for it; also lists the other checks that a mistake
// of that kind necessarily trips too (a wrong forward tangent fails both forward
// checks), and nothing else may fail, except after a structure failure (cascade):
// the other checks still run on the broken rule, so that its author sees which
// method is wrong, and those that need the broken method fail too.
func TestMutantsAreCaught(t *testing.T) {
	cfg := ruletest.Config{}
	x := randT(tensor.Float64, 2, 3)
	tests := []struct {
		name   string
		verify func() error
		want   string
		also   []string
	}{
		{"sign flip", verifyF(sinFirstOrder(func(r *scalarRule) { r.signFlip = true }), []float64{0.7}, cfg),
			ruletest.CheckAdjointFD, nil},
		{"missing conjugate on complex exp", verifyT(expOp(func(r *expRule) { r.noConj = true }, true), []*tensor.Dense{randT(tensor.Complex128, 2, 3)}, cfg),
			ruletest.CheckAdjointFD, nil},
		{"transposed cotangent", verifyT(matmulOp(true), []*tensor.Dense{randT(tensor.Float64, 3, 3), randT(tensor.Float64, 3, 3)}, cfg),
			ruletest.CheckAdjointFD, []string{ruletest.CheckForwardAdjoint}},
		{"wrong shape", verifyT(expOp(func(r *expRule) { r.wrongShape = true }, true), []*tensor.Dense{x}, cfg),
			ruletest.CheckStructure, nil},
		{"wrong arity (one contribution for two inputs)", verifyF(mulOp(func(r *mulRule) { r.dropSecond = true }), []float64{1.3, -0.4}, cfg),
			ruletest.CheckStructure, nil},
		{"contribution for a foreign node", verifyF(mulOp(func(r *mulRule) { r.foreign = true }), []float64{1.3, -0.4}, cfg),
			ruletest.CheckStructure, nil},
		{"complex cotangent for a real input", verifyT(matmulOp(false), []*tensor.Dense{randT(tensor.Float64, 3, 3), randT(tensor.Complex128, 3, 2)}, cfg),
			ruletest.CheckStructure, nil},
		{"wrong Inputs", verifyF(mulOp(func(r *mulRule) { r.wrongInputs = true }), []float64{1.3, -0.4}, cfg),
			ruletest.CheckStructure, nil},
		{"contribution for a non-differentiable input", verifyF(scaleByOp{leak: true}, []float64{1.3, -0.4}, cfg),
			ruletest.CheckStructure, nil},
		{"pullback mutates its input", verifyT(expOp(func(r *expRule) { r.mutateInput = true }, true), []*tensor.Dense{x}, cfg),
			ruletest.CheckMutation, nil},
		{"stale state between calls", verifyF(sinFirstOrder(func(r *scalarRule) { r.stale = true }), []float64{0.7}, cfg),
			ruletest.CheckRepeat, nil},
		{"affine pullback", verifyF(sinFirstOrder(func(r *scalarRule) { r.affine = true }), []float64{0.7}, cfg),
			ruletest.CheckZeroCotangent, []string{ruletest.CheckAdjointFD, ruletest.CheckLinearity}},
		// Right for unit cotangents, which the finite-difference checks use, and zero
		// at zero: only the linearity check sees it.
		{"pullback not linear in ybar", verifyF(sinFirstOrder(func(r *scalarRule) { r.quadratic = true }), []float64{0.7}, cfg),
			ruletest.CheckLinearity, nil},
		{"wrong PullbackWithTangents term", verifyF(sinOp(func(r *scalarRule) { r.wrongSecond = true }), []float64{0.7}, cfg),
			ruletest.CheckSecondOrderFD, []string{ruletest.CheckSecondOrderPrimal}},
		{"asymmetric Hessian", verifyF(mulOp(func(r *mulRule) { r.asymmetric = true }), []float64{1.3, -0.4}, cfg),
			ruletest.CheckHessianSymmetry, []string{ruletest.CheckSecondOrderFD, ruletest.CheckSecondOrderPrimal}},
		{"wrong forward tangent", verifyF(sinOp(func(r *scalarRule) { r.wrongForward = true }), []float64{0.7}, cfg),
			ruletest.CheckForwardFD, []string{ruletest.CheckForwardAdjoint}},
		{"wrong rule at a kink", verifyF(reluOp(true), []float64{0}, ruletest.Config{Kink: &ruletest.Kink[float64]{
			Reason:   "relu at 0: subgradient 0",
			Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
		}}), ruletest.CheckKink, nil},
		{"kink of the wrong value type", verifyF(reluOp(false), []float64{0}, ruletest.Config{Kink: &ruletest.Kink[complex128]{Reason: "x"}}),
			ruletest.CheckKink, nil},
		{"non-deterministic primal", verifyF(counterOp(), []float64{0.7}, cfg),
			ruletest.CheckPrimal, []string{ruletest.CheckAdjointFD, ruletest.CheckForwardFD}},
	}
	cascade := []string{"wrong shape", "wrong arity (one contribution for two inputs)",
		"contribution for a foreign node", "complex cotangent for a real input"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.verify()
			require.Error(t, err, "the mutant passed every check")
			got := failedChecks(t, err)
			assert.Contains(t, got, tc.want, "%v", err)
			allowed := append([]string{tc.want}, tc.also...)
			for _, c := range got {
				if !slices.Contains(cascade, tc.name) {
					assert.Contains(t, allowed, c, "unexpected check failed: %v", err)
				}
			}
			t.Log(err)
		})
	}
}

func TestFailureMessage(t *testing.T) {
	err := ruletest.Verify(tensor.Space{}, expOp(func(r *expRule) { r.noConj = true }, true),
		[]*tensor.Dense{randT(tensor.Complex128, 2, 3)}, ruletest.Config{Seed: 42})
	require.Error(t, err)
	var f *ruletest.Failure
	require.ErrorAs(t, err, &f)
	msg := f.Error()
	for _, want := range []string{"exp", ruletest.CheckAdjointFD, "x0 complex128[2 3]", "worst element [", "got ", "want ", "seed 42"} {
		assert.Contains(t, msg, want)
	}
	assert.Len(t, f.Index, 2)
}

func TestSeedIsReproducible(t *testing.T) {
	op := sinFirstOrder(func(r *scalarRule) { r.signFlip = true })
	a := ruletest.Verify(cr.Float64Space{}, op, []float64{0.7}, ruletest.Config{Seed: 9})
	b := ruletest.Verify(cr.Float64Space{}, op, []float64{0.7}, ruletest.Config{Seed: 9})
	require.Error(t, a)
	assert.Equal(t, a.Error(), b.Error())
	assert.Contains(t, a.Error(), "(seed 9)")
}

func TestTolerancesCanBeSet(t *testing.T) {
	// A pullback off by one part in 1e4 fails the default tolerance, passes a loose one.
	op := cr.OpFunc[float64]{OpName: "almost", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return 2 * x[0], firstOrder[float64]{&scalarRule{in: append([]cr.NodeID(nil), in...), d1: 2 * (1 + 1e-4)}}, nil
	}}
	assert.Equal(t, []string{ruletest.CheckAdjointFD}, failedChecks(t, ruletest.Verify(cr.Float64Space{}, op, []float64{1}, ruletest.Config{})))
	assert.NoError(t, ruletest.Verify(cr.Float64Space{}, op, []float64{1}, ruletest.Config{Rtol: 1e-3}))
}

func TestPanickingRuleIsReported(t *testing.T) {
	op := cr.OpFunc[float64]{OpName: "boom", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		var r *scalarRule // nil: Pullback dereferences it
		return x[0], r, nil
	}}
	err := ruletest.Verify(cr.Float64Space{}, op, []float64{1}, ruletest.Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "panic")
}

func TestApplyErrorIsReported(t *testing.T) {
	err := ruletest.Verify(tensor.Space{}, matmulOp(false), []*tensor.Dense{randT(tensor.Float64, 2, 3), randT(tensor.Float64, 2, 3)}, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckApply}, failedChecks(t, err))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
}

// recorder is a testing.TB that records what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(strings.Repeat("%v ", len(args))))
}
func (r *recorder) Errorf(string, ...any) { r.errs = append(r.errs, "errorf") }

func TestCheckReportsThroughT(t *testing.T) {
	rec := &recorder{TB: t}
	ruletest.Check(rec, cr.Float64Space{}, sinFirstOrder(func(r *scalarRule) { r.signFlip = true }), []float64{0.7}, ruletest.Config{})
	assert.Len(t, rec.errs, 1)
	rec = &recorder{TB: t}
	ruletest.Check(rec, cr.Float64Space{}, sinOp(nil), []float64{0.7}, ruletest.Config{})
	assert.Empty(t, rec.errs)
	// And the real thing, with subtests.
	ruletest.Check(t, tensor.Space{}, expOp(nil, false), []*tensor.Dense{randT(tensor.Complex128, 3)}, ruletest.Config{})
}

func registry(t *testing.T, mutate func(*cr.Entry[float64])) *cr.Registry[float64] {
	reg := cr.NewRegistry[float64]()
	entries := []cr.Entry[float64]{
		{Name: "sin", Arity: 1, DTypes: []string{"float64"}, Forward: true, SecondOrder: true,
			Samples: func(rng *rand.Rand) []cr.Sample[float64] {
				return []cr.Sample[float64]{{Name: "random", Op: sinOp(nil), Inputs: []float64{rng.NormFloat64()}}, {Op: sinOp(nil), Inputs: []float64{3}}}
			}},
		{Name: "mul", Arity: 2, DTypes: []string{"float64"}, Forward: true, SecondOrder: true,
			Samples: func(*rand.Rand) []cr.Sample[float64] {
				return []cr.Sample[float64]{{Name: "a*b", Op: mulOp(nil), Inputs: []float64{2, -3}}}
			}},
	}
	for _, e := range entries {
		if mutate != nil {
			mutate(&e)
		}
		require.NoError(t, reg.Register(e))
	}
	return reg
}

func TestRegistry(t *testing.T) {
	ruletest.CheckRegistry(t, cr.Float64Space{}, registry(t, nil), ruletest.Config{})
	tests := []struct {
		name   string
		mutate func(*cr.Entry[float64])
		want   string
		text   string
	}{
		{"ok", nil, "", ""},
		{"no samples", func(e *cr.Entry[float64]) { e.Samples = nil }, ruletest.CheckSamples, "no samples"},
		{"empty samples", func(e *cr.Entry[float64]) {
			e.Samples = func(*rand.Rand) []cr.Sample[float64] { return nil }
		}, ruletest.CheckSamples, "no samples"},
		{"claims no forward rule", func(e *cr.Entry[float64]) { e.Forward = false }, ruletest.CheckInterfaces, "Forward=false"},
		{"claims a second-order rule it lacks", func(e *cr.Entry[float64]) {
			if e.Name == "sin" {
				e.Samples = func(*rand.Rand) []cr.Sample[float64] {
					return []cr.Sample[float64]{{Op: sinFirstOrder(nil), Inputs: []float64{1}}}
				}
			}
		}, ruletest.CheckInterfaces, "SecondOrder=true"},
		{"wrong arity", func(e *cr.Entry[float64]) { e.Arity = 3 }, ruletest.CheckInterfaces, "arity"},
		{"wrong dtypes", func(e *cr.Entry[float64]) { e.DTypes = []string{"complex128"} }, ruletest.CheckInterfaces, "DTypes"},
		{"wrong rule in a sample", func(e *cr.Entry[float64]) {
			if e.Name == "sin" {
				e.Samples = func(*rand.Rand) []cr.Sample[float64] {
					return []cr.Sample[float64]{{Op: sinOp(func(r *scalarRule) { r.wrongSecond = true }), Inputs: []float64{1}}}
				}
			}
		}, ruletest.CheckSecondOrderFD, "sin/sample0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ruletest.VerifyRegistry(cr.Float64Space{}, registry(t, tc.mutate), ruletest.Config{})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, failedChecks(t, err), tc.want)
			assert.Contains(t, err.Error(), tc.text)
		})
	}
}

// Errors from the checker are values: errors.Is sees through the join.
func TestErrorsIs(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, sinFirstOrder(func(r *scalarRule) { r.signFlip = true }), []float64{0.7}, ruletest.Config{})
	assert.True(t, errors.Is(err, ruletest.ErrCheckFailed))
}

// infRule is the rule of y = 2x whose pullback returns +Inf * ybar: wrong, and
// once invisible to the checker, whose tolerance scale became infinite too.
type infRule struct{ in []cr.NodeID }

func (r infRule) Inputs() []cr.NodeID { return r.in }

func (r infRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: math.Inf(1) * ybar[0]}), nil
}

func TestInfinitePullbackFails(t *testing.T) {
	op := cr.OpFunc[float64]{OpName: "inf_pullback", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return 2 * x[0], infRule{in: slices.Clone(in)}, nil
	}}
	err := ruletest.Verify(cr.Float64Space{}, op, []float64{0.7}, ruletest.Config{})
	require.ErrorIs(t, err, ruletest.ErrCheckFailed)
	require.ErrorContains(t, err, ruletest.CheckAdjointFD)
}

// staleSin is sin whose rules keep the derivatives of the first point the op was
// applied to (a stale cache, the factorisation-cache class of bug), with a
// second-order term consistent with them (zero: the cached derivative does not
// move). It is right at the first point only.
func staleSin() cr.Op[float64] {
	first, d1 := true, 0.0
	return sinOp(func(r *scalarRule) {
		if first {
			first, d1 = false, r.d1
		}
		r.d1, r.d2 = d1, 0
	})
}

// The checker differentiates the pullback at points around x only through rules
// applied there, which a stale rule fools; the mixed second difference of the
// primal does not.
func TestStaleRuleFails(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, staleSin(), []float64{0.7}, ruletest.Config{})
	require.ErrorIs(t, err, ruletest.ErrCheckFailed)
	require.ErrorContains(t, err, ruletest.CheckSecondOrderPrimal)
}

// trigOps returns sin and the ops of its recorded derivatives, as defined ops
// whose pullbacks are written with the next one: sin' = cos, cos' = -sin,
// (-sin)' = -cos, (-cos)' = sin. With wrong, (-cos)' is -sin: a mistake only the
// fourth derivative of sin sees.
func trigOps(wrong bool) cr.Op[float64] {
	f64 := cr.Float64Space{}
	var mul cr.Op[float64]
	mul = core.Define(core.Def[float64]{Name: "mul", Space: f64, Arity: 2,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[1]}, nil },
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mul, ybar[0], x[1]), t.Apply(mul, ybar[0], x[0])}
		}})
	// trig(k) is the k-th derivative of sin: sin, cos, -sin, -cos, sin, ...
	var trig func(k int) cr.Op[float64]
	trig = func(k int) cr.Op[float64] {
		k %= 4
		return core.Define(core.Def[float64]{Name: [...]string{"sin", "cos", "neg_sin", "neg_cos"}[k], Space: f64, Arity: 1,
			Primal: func(x []float64) ([]float64, error) {
				s, c := math.Sincos(x[0])
				return []float64{[...]float64{s, c, -s, -c}[k]}, nil
			},
			Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
				next := k + 1
				if wrong && k == 3 {
					next = 2 // (-cos)' taken as -sin instead of sin
				}
				return []cr.NodeID{t.Apply(mul, t.Apply(trig(next), x[0]), ybar[0])}
			}})
	}
	return trig(0)
}

// The checker goes to the fourth derivative through recorded pullbacks: a mistake
// three recordings deep fails recorded-fourth alone.
func TestRecordedOrders(t *testing.T) {
	f64 := cr.Float64Space{}
	require.NoError(t, ruletest.Verify(f64, trigOps(false), []float64{0.7}, ruletest.Config{}))
	err := ruletest.Verify(f64, trigOps(true), []float64{0.7}, ruletest.Config{})
	require.ErrorIs(t, err, ruletest.ErrCheckFailed)
	require.ErrorContains(t, err, ruletest.CheckRecordedFourth)
	require.NotContains(t, err.Error(), ruletest.CheckRecordedThird+":")
}

// matRule is the rule of Y = A B for a fixed B; transposed makes its pullback
// return (Ybar B^T)^T instead of Ybar B^T, a mistake that symmetric directions
// would not see.
type matRule struct {
	in         []cr.NodeID
	b          *tensor.Dense
	transposed bool
}

func (r matRule) Inputs() []cr.NodeID { return r.in }

func (r matRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	bt, err := r.b.Transpose(0, 1)
	if err != nil {
		return dst, err
	}
	g, err := tensor.MatMul(ybar[0], bt)
	if err != nil {
		return dst, err
	}
	if r.transposed {
		if g, err = g.Transpose(0, 1); err != nil {
			return dst, err
		}
		g = g.Clone()
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: g}), nil
}

// The checker's random directions for a square matrix are not symmetric, so a
// pullback that returns the transpose of the right cotangent fails.
func TestTransposedPullbackOfSquareMatrixFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	b := tensor.RandN(rng, tensor.Float64, 3, 3)
	op := func(transposed bool) cr.Op[*tensor.Dense] {
		return cr.OpFunc[*tensor.Dense]{OpName: "matmul_fixed", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
			y, err := tensor.MatMul(x[0], b)
			return y, matRule{in: slices.Clone(in), b: b, transposed: transposed}, err
		}}
	}
	a := tensor.RandN(rng, tensor.Float64, 3, 3)
	require.NoError(t, ruletest.Verify(tensor.Space{}, op(false), []*tensor.Dense{a}, ruletest.Config{}))
	err := ruletest.Verify(tensor.Space{}, op(true), []*tensor.Dense{a}, ruletest.Config{})
	require.ErrorIs(t, err, ruletest.ErrCheckFailed)
	require.ErrorContains(t, err, ruletest.CheckAdjointFD)
}

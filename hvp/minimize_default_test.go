package hvp_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/optimize"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// With nil settings, gonum's line-search methods stop on an ill-conditioned logistic
// regression at a minimum to working precision (|g|∞ about 1e-9, out of reach of
// gonum's default threshold 1e-12) with "linesearch: failed to converge": Minimize
// reports that as a success, and keeps the failure when the caller asked for the
// unreachable threshold.
func TestMinimizeDefaultSettingsSolved(t *testing.T) {
	const n, d = 500, 20
	xs, negY := logisticData(14, n, d)
	X, err := tensor.FromFloat64(xs, n, d)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := tensor.FromFloat64(negY, n)
	if err != nil {
		t.Fatal(err)
	}
	f := logisticLoss(X, tensor.Scale(ys, -1), n)
	// The minimum, to rounding, by Newton-CG.
	ref, err := hvp.Minimize(hvp.NewObjective(f, d), make([]float64, d), nil, &hvp.NewtonCG{})
	if err != nil {
		t.Fatal(err)
	}
	stalled := 0
	for _, c := range []struct {
		name   string
		method func() optimize.Method
	}{
		{"BFGS", func() optimize.Method { return &optimize.BFGS{} }},
		{"LBFGS", func() optimize.Method { return &optimize.LBFGS{} }},
		{"CG", func() optimize.Method { return &optimize.CG{} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := hvp.Minimize(hvp.NewObjective(f, d), make([]float64, d), nil, c.method())
			if err != nil || res.Status == optimize.Failure {
				t.Fatalf("status %v, error %v", res.Status, err)
			}
			if g := stalledInfNorm(res.Gradient); g > hvp.StalledGradientTol {
				t.Errorf("|g|∞ = %g at the result", g)
			}
			if math.Abs(res.F-ref.F) > 1e-12 {
				t.Errorf("f = %.17g, Newton-CG's minimum %.17g", res.F, ref.F)
			}
			// gonum's own verdict on the same problem, and with a threshold of the
			// caller's, which Minimize leaves alone.
			raw, rawErr := optimize.Minimize(hvp.NewObjective(f, d).Problem(), make([]float64, d), nil, c.method())
			if raw.Status != optimize.Failure {
				return
			}
			stalled++
			if !errors.Is(rawErr, optimize.ErrLinesearcherFailure) && !errors.Is(rawErr, optimize.ErrNoProgress) {
				t.Errorf("gonum failed otherwise: %v", rawErr)
			}
			strict := &optimize.Settings{GradientThreshold: 1e-14}
			res, err = hvp.Minimize(hvp.NewObjective(f, d), make([]float64, d), strict, c.method())
			if err == nil || res.Status != optimize.Failure {
				t.Errorf("with GradientThreshold 1e-14: status %v, error %v; want gonum's failure", res.Status, err)
			}
		})
	}
	if stalled == 0 {
		t.Error("no method stalls under gonum's defaults: the test no longer exercises the rule")
	}
}

func stalledInfNorm(g []float64) float64 {
	m := 0.0
	for _, v := range g {
		m = max(m, math.Abs(v))
	}
	return m
}

package hvp_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
)

func rosenbrockStart(n int) []float64 {
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = -1.2
		if i%2 == 1 {
			x0[i] = 1
		}
	}
	return x0
}

// Both Newton methods on the chained Rosenbrock function from the standard start;
// the line search needs fewer iterations and products than the trust region on it,
// as scipy's Newton-CG (226 iterations, 1844 HVPs at n = 100) does.
func TestLineSearchNewtonCGRosenbrock(t *testing.T) {
	for _, n := range []int{2, 10, 100} {
		settings := &optimize.Settings{GradientThreshold: 1e-9}
		ls := &hvp.LineSearchNewtonCG{}
		obj := hvp.NewObjective(rosenbrock, n)
		res, err := hvp.Minimize(obj, rosenbrockStart(n), settings, ls)
		require.NoError(t, err)
		assert.Equal(t, optimize.GradientThreshold, res.Status)
		for i, xi := range res.X {
			require.InDelta(t, 1, xi, 1e-6, "x[%d] with n = %d", i, n)
		}
		assert.Equal(t, ls.HVPs, obj.HVPs, "the method's products are the objective's")

		tr := &hvp.NewtonCG{}
		trObj := hvp.NewObjective(rosenbrock, n)
		trRes, err := hvp.Minimize(trObj, rosenbrockStart(n), settings, tr)
		require.NoError(t, err)
		t.Logf("n=%d: line search %d iterations, %d HVPs, %d f/g evals; trust region %d iterations, %d HVPs, %d f/g evals", n,
			res.Stats.MajorIterations-1, ls.HVPs, res.Stats.GradEvaluations, trRes.Stats.MajorIterations-1, tr.HVPs, trRes.Stats.GradEvaluations)
		if n == 100 {
			assert.Less(t, res.Stats.MajorIterations, trRes.Stats.MajorIterations)
			assert.Less(t, ls.HVPs, tr.HVPs)
		}
	}
}

// At a saddle's neighbourhood the first CG step meets negative curvature along -g;
// the method leaves along steepest descent and finds a minimum.
func TestLineSearchNewtonCGNegativeCurvature(t *testing.T) {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(doubleWellOp{}, x[0]) }
	obj := hvp.NewObjective(f, 2)
	res, err := hvp.Minimize(obj, []float64{1e-3, 0}, nil, &hvp.LineSearchNewtonCG{})
	require.NoError(t, err)
	assert.InDelta(t, 1, math.Abs(res.X[0]), 1e-7)
	assert.InDelta(t, 0, res.X[1], 1e-7)
}

// f(x) = sum(x - 2 sqrt(x)) is NaN for x < 0; the Newton step from near 0 overshoots
// there, and the line search halves it instead of failing.
func TestLineSearchNewtonCGHalvesIntoTheDomain(t *testing.T) {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		terms := t.Apply(ew.SubOp, x[0], t.Apply(ew.ScaleOp(2), t.Apply(ew.SqrtOp, x[0])))
		return t.Apply(reduce.SumOp(nil, false), terms)
	}
	obj := hvp.NewObjective(f, 2)
	ls := &hvp.LineSearchNewtonCG{}
	res, err := hvp.Minimize(obj, []float64{4, 9}, nil, ls)
	require.NoError(t, err)
	assert.InDelta(t, 1, res.X[0], 1e-8)
	assert.InDelta(t, 1, res.X[1], 1e-8)
	assert.Positive(t, ls.Rejected, "NaN trial points were rejected")
}

// failingSearch is a Linesearcher that never accepts a step.
type failingSearch struct{}

func (failingSearch) Init(float64, float64, float64) optimize.Operation {
	return optimize.FuncEvaluation | optimize.GradEvaluation
}

func (failingSearch) Iterate(float64, float64) (optimize.Operation, float64, error) {
	return optimize.NoOperation, 0, optimize.ErrLinesearcherFailure
}

// A failed line search takes its best point if f decreased there, and fails the run
// otherwise. With H = -I the direction is -g, and the first trial step has length
// 1.01: from x = 10 on f = x^2/2 it decreases f, from x = 0.1 on f = 50 x^2 it does
// not.
func TestLineSearchNewtonCGFailedSearch(t *testing.T) {
	negIdentity := func(dst, _, v []float64) error {
		for i := range v {
			dst[i] = -v[i]
		}
		return nil
	}
	quadratic := func(c float64) hvp.Func {
		return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
			return t.Apply(ew.ScaleOp(c/2), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SquareOp, x[0])))
		}
	}

	obj := hvp.NewObjective(quadratic(1), 1)
	m := &hvp.LineSearchNewtonCG{HessVec: negIdentity, Linesearcher: failingSearch{}}
	res, err := hvp.Minimize(obj, []float64{10}, &optimize.Settings{MajorIterations: 3}, m)
	require.NoError(t, err)
	assert.Equal(t, optimize.IterationLimit, res.Status)
	assert.Less(t, res.X[0], 10-1.01+1e-12, "two steps taken, the first of length 1.01")
	assert.Less(t, res.F, 50.0)

	obj = hvp.NewObjective(quadratic(100), 1)
	m = &hvp.LineSearchNewtonCG{HessVec: negIdentity, Linesearcher: failingSearch{}}
	res, err = hvp.Minimize(obj, []float64{0.1}, nil, m)
	require.ErrorIs(t, err, optimize.ErrLinesearcherFailure)
	assert.Equal(t, optimize.Failure, res.Status)
	assert.Equal(t, 0.1, res.X[0])
}

// A gradient that is not finite wherever f is (a broken derivative) fails both Newton
// methods, however short the step: they never take such a point, nor report
// convergence for lack of one.
func TestNewtonMethodsFailOnNonFiniteTrialGradients(t *testing.T) {
	for _, method := range []optimize.Method{&hvp.NewtonCG{}, &hvp.LineSearchNewtonCG{}} {
		x0 := []float64{-1.2, 1}
		p := optimize.Problem{
			Func: func(x []float64) float64 { return (x[0]-1)*(x[0]-1) + (x[1]-1)*(x[1]-1) },
			Grad: func(g, x []float64) {
				g[0], g[1] = 2*(x[0]-1), 2*(x[1]-1)
				if x[0] != x0[0] {
					g[1] = math.NaN() // everywhere but at the start
				}
			},
		}
		hv := func(dst, _, v []float64) error {
			dst[0], dst[1] = 2*v[0], 2*v[1]
			return nil
		}
		switch m := method.(type) {
		case *hvp.NewtonCG:
			m.HessVec = hv
		case *hvp.LineSearchNewtonCG:
			m.HessVec = hv
		}
		res, err := optimize.Minimize(p, x0, nil, method)
		require.ErrorIs(t, err, cr.ErrNonFinite, "%T", method)
		assert.ErrorContains(t, err, "the gradient at a trial point is not finite (element 1 is NaN)")
		assert.Equal(t, optimize.Failure, res.Status, "%T", method)
		assert.Equal(t, x0, res.X, "%T: no point with a NaN gradient is taken", method)
	}
}

// The line-search method on the 10-dimensional Rosenbrock function; its Trace shows
// the step sizes (1 for a full Newton step) and CG iterations of each iteration.
func ExampleLineSearchNewtonCG() {
	obj := hvp.NewObjective(rosenbrock, 10)
	trace := &hvp.Trace{}
	settings := &optimize.Settings{GradientThreshold: 1e-9, Recorder: trace}
	method := &hvp.LineSearchNewtonCG{}
	res, err := hvp.Minimize(obj, rosenbrockStart(10), settings, method)
	if err != nil {
		panic(err)
	}
	full := 0
	for _, it := range trace.Iterations[1:] {
		if it.StepSize == 1 {
			full++
		}
	}
	fmt.Printf("%v after %d iterations (%d full Newton steps), %d HVPs; x[9] = %.6f\n",
		res.Status, len(trace.Iterations)-1, full, method.HVPs, res.X[9])
	// Output:
	// GradientThreshold after 134 iterations (31 full Newton steps), 432 HVPs; x[9] = 1.000000
}

// ceilingSearch is a Linesearcher that never accepts a step and always asks for an
// infinite one: past every trial point found not finite, so that the method must
// backtrack by itself.
type ceilingSearch struct{}

func (ceilingSearch) Init(float64, float64, float64) optimize.Operation {
	return optimize.FuncEvaluation | optimize.GradEvaluation
}

func (ceilingSearch) Iterate(float64, float64) (optimize.Operation, float64, error) {
	return optimize.FuncEvaluation | optimize.GradEvaluation, math.Inf(1), nil
}

// Where the line searcher asks for a step as long as one that gave a point that is
// not finite, the method backtracks: it takes the current trial point if it passes
// the Armijo test f(x + a p) <= f(x) + 1e-4 a g^T p, and halves the step otherwise.
// f = x^2/2 is NaN below lo; the first trial step, 1, lands there (the start is
// chosen so that scipy's first-step guess is not below 1), and the searcher then
// always asks for more.
func TestLineSearchNewtonCGBacktracksWithArmijo(t *testing.T) {
	cases := []struct {
		name     string
		x0, h    float64 // the start and the Hessian the method is given
		lo       float64 // the domain's edge
		want     float64 // the point taken
		rejected int
	}{
		// p = -0.5; step 1 gives x = 0 < 1/8 (NaN); step 1/2 gives x = 1/4 with
		// f = 1/32 <= 1/8 - 1e-4/8: taken.
		{"decrease is sufficient at the half step", 0.5, 1, 0.125, 0.25, 1},
		// A Hessian ten times too small makes p = -1: step 1 gives x = -0.9 < -0.5
		// (NaN); step 1/2 gives x = -0.4 with f = 0.08 > 0.005, and step 1/4 x = -0.15
		// with f = 0.01125 > 0.005: both halved; step 1/8 gives x = -0.025 with f =
		// 0.0003125 <= 0.005 - 1.25e-6: taken.
		{"the half step increases f", 0.1, 0.1, -0.5, -0.025, 3},
		// p = -0.4 + 2e-7 (g^T p = -0.04): step 1 gives x = -0.3 < -0.25 (NaN); step
		// 1/2 gives x = -0.1 + 1e-7, where f = 0.005 - 1e-8 decreases, but by less than
		// the 2e-6 that Armijo asks: halved; step 1/4 gives x = 5e-8: taken.
		{"the half step decreases f too little", 0.1, 0.1 / (0.4 - 2e-7), -0.25, 5e-8, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := optimize.Problem{
				Func: func(x []float64) float64 {
					if x[0] < c.lo {
						return math.NaN()
					}
					return x[0] * x[0] / 2
				},
				Grad: func(g, x []float64) { g[0] = x[0] },
			}
			m := &hvp.LineSearchNewtonCG{
				Linesearcher: ceilingSearch{},
				HessVec:      func(dst, _, v []float64) error { dst[0] = c.h * v[0]; return nil },
			}
			// Two major iterations: the start and the first step.
			res, err := optimize.Minimize(p, []float64{c.x0}, &optimize.Settings{MajorIterations: 2}, m)
			require.NoError(t, err)
			require.Equal(t, optimize.IterationLimit, res.Status)
			assert.InDelta(t, c.want, res.X[0], 1e-15)
			assert.Less(t, res.F, c.x0*c.x0/2, "f decreased")
			assert.Equal(t, c.rejected, m.Rejected)
		})
	}
}

// With the gradient threshold off, a gradient whose square underflows (g = 1e-170)
// leaves no descent that floating point can resolve: the method stops with
// StepConvergence instead of handing MoreThuente a zero slope, on which it panics.
func TestLineSearchNewtonCGUnderflowingSlope(t *testing.T) {
	p := optimize.Problem{
		Func: func(x []float64) float64 { return 1e-170 * x[0] },
		Grad: func(g, _ []float64) { g[0] = 1e-170 },
	}
	m := &hvp.LineSearchNewtonCG{GradStopThreshold: math.NaN(), HessVec: func(dst, _, v []float64) error { copy(dst, v); return nil }}
	res, err := optimize.Minimize(p, []float64{1}, nil, m)
	require.NoError(t, err)
	assert.Equal(t, optimize.StepConvergence, res.Status)
	assert.Equal(t, []float64{1}, res.X)
}

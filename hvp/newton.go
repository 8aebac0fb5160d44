package hvp

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// The two Newton methods are one outer loop and two ways of taking a step, as gonum
// composes its Newton from a Linesearcher and a NextDirectioner: newtonMethod.outer
// evaluates, checks and reports the start point, and at each iteration stops at a
// small gradient or at the iteration limit before it asks the method's step for the
// next iterate. NewtonCG's step is a trust-region step (Steihaug's truncated CG,
// the ratio test, the radius update), LineSearchNewtonCG's a truncated-Newton
// direction and a line search along it. Both steps evaluate their trial points and
// report the iterates they take through the iterate they are given.

// newtonSettings are the options that the two Newton methods share, read from their
// exported fields.
type newtonSettings struct {
	name          string // the method's name in errors
	hessVec       HessVecFunc
	err           func() error // the objective's evaluation error (Err), or nil
	gradTol       float64      // GradStopThreshold (0: the default)
	maxIterations int          // MaxIterations (<= 0: the default)
}

// newtonStep takes one outer iteration of a Newton method from it. It moves it (by
// it.take) or not, and returns optimize.NotTerminated and nil to go on, or the
// status and error the method stops with.
type newtonStep func(it *iterate) (optimize.Status, error)

// iterate is the current point of a Newton method, with the conversation with gonum
// and the work vectors of a trial point.
type iterate struct {
	operation chan<- optimize.Task
	result    <-chan optimize.Task
	method    *newtonMethod
	evalErr   func() error

	x, g          []float64 // the iterate and its gradient
	f             float64   // its value
	trial, gTrial []float64 // a trial point and its gradient
}

// evalTrial evaluates f and its gradient at it.trial (the gradient into it.gTrial):
// optimize.NotTerminated and errStopped when gonum stops the run, optimize.Failure
// and the objective's error when the evaluation failed.
func (it *iterate) evalTrial() (optimize.Task, optimize.Status, error) {
	t, err := eval(it.operation, it.result, optimize.Task{
		Op:       optimize.FuncEvaluation | optimize.GradEvaluation,
		Location: &optimize.Location{X: it.trial, Gradient: it.gTrial},
	})
	if err != nil {
		return t, optimize.NotTerminated, err
	}
	if err := it.evalErr(); err != nil {
		return t, optimize.Failure, err
	}
	return t, optimize.NotTerminated, nil
}

// take moves the iterate to (x, f, g), records last as the method's figures for
// the iteration and reports it to gonum as a major iteration.
func (it *iterate) take(x []float64, f float64, g []float64, last Iteration) error {
	copy(it.x, x)
	copy(it.g, g)
	it.f = f
	it.method.last = last
	return major(it.operation, it.result, it.x, it.f, it.g)
}

// outer runs the outer loop of a Newton method over b.dim variables from task:
// the start point's checks and report (with the figures first), then, until the
// infinity norm of the gradient is zero or below the threshold, or
// s.maxIterations iterations are made, one step a iteration.
func (b *newtonMethod) outer(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task, s newtonSettings, first Iteration, step newtonStep) (optimize.Status, error) {
	n := b.dim
	gradTol := orDefault(s.gradTol, 1e-10)
	evalErr := func() error { return callErr(s.err) }
	x, f, g, status, err := start(operation, result, task, n, s.hessVec, evalErr)
	if err != nil {
		return status, err
	}
	b.last = first
	if err := major(operation, result, x, f, g); err != nil {
		return optimize.NotTerminated, err
	}
	it := &iterate{operation: operation, result: result, method: b, evalErr: evalErr,
		x: x, g: g, f: f, trial: make([]float64, n), gTrial: make([]float64, n)}
	maxOuter := maxIterations(s.maxIterations, n)
	for k := 0; ; k++ {
		if gn := floats.Norm(it.g, math.Inf(1)); gn == 0 || !math.IsNaN(gradTol) && gn < gradTol {
			return optimize.GradientThreshold, nil // (a zero gradient is stationary even without a threshold)
		}
		if k == maxOuter {
			return iterationLimit(s.name, k)
		}
		if status, err := step(it); err != nil || status != optimize.NotTerminated {
			return status, err
		}
	}
}

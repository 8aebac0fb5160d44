package hvp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// LineSearchNewtonCG is an optimize.Method that minimises with line-search Newton-CG
// (truncated Newton; Nocedal and Wright, Numerical Optimization, algorithm 7.1), the
// algorithm of scipy's minimize(method="Newton-CG"), with its choices:
//
//   - at each iterate x with gradient g, conjugate gradients on H p = -g, with
//     Hessian-vector products only, from p = 0 until the residual's 1-norm is below
//     min(1/2, sqrt(||g||_1)) ||g||_1 (the Eisenstat-Walker forcing term, for
//     superlinear convergence), or up to the first direction of non-positive
//     curvature: then p is the iterate so far or, at the very first CG step, the
//     steepest-descent direction scaled by ||g||^2 / |g^T H g|;
//   - a line search along p that satisfies the strong Wolfe conditions (gonum's
//     MoreThuente with MINPACK's constants 1e-4 and 0.9, as scipy's search), from
//     the step min(1, 2.02 (f_k - f_{k-1}) / g^T p), which is 1 once the iterates
//     converge.
//
// On the chained Rosenbrock function in 100 dimensions it needs fewer iterations
// and Hessian-vector products than the trust-region NewtonCG, and about as many as
// scipy's Newton-CG (TestLineSearchNewtonCGRosenbrock checks the first and logs the
// counts). The trust region is the safer method where the curvature is often
// negative — on the 2- and 10-dimensional Rosenbrock functions it needs fewer
// iterations than this method (and than scipy's) — since a line search can use a
// negative-curvature direction only through a short steepest-descent step.
//
// Errors and non-finite values are handled as by NewtonCG: it stops with
// optimize.Failure on the first error of HessVec or Err, on a non-finite starting
// value, gradient or product, and never reports convergence after one. A trial point
// whose value (NaN or +Inf) or gradient is not finite halves the step, and no later
// trial of that search goes as far: where the line searcher asks for such a step, the
// method backtracks instead (it takes the current trial point if it decreases f
// enough, by the Armijo test, and halves the step otherwise). If the step becomes too
// short to resolve with such a point last (shorter than 1e-14 max(1, |x|), NewtonCG's
// limit on its radius, or too short to move x), the method fails with an error
// wrapping chainrules.ErrNonFinite: so it does, as NewtonCG, when the infimum is at
// the edge of the domain. A line search makes at most 200 trials; one that fails
// (or runs out of trials) accepts the trial point of least value if it decreased f,
// and otherwise stops with optimize.Failure and the line searcher's error; a step too
// short to change x stops it with optimize.StepConvergence. A start point whose
// value or gradient is not finite fails with an error wrapping
// chainrules.ErrNonFinite and gonum's optimize.ErrFunc or optimize.ErrGrad, and a
// panic of HessVec, Err or the Linesearcher, which run on gonum's goroutine, with
// optimize.Failure and a *PanicError.
//
// It always stops. On an objective unbounded below the line search runs to its
// largest step (MoreThuente's MaximumStep, 1e20 by default) and fails there with
// optimize.ErrLinesearcherBound, f still falling; when that step has length at least
// 1e10 (NewtonCG's default MaxRadius) the method takes its point and stops with
// optimize.Failure and an error wrapping ErrUnbounded and the line searcher's (a
// shorter one is taken as any failed search's best point). A value of -Inf stops
// gonum with optimize.FunctionNegativeInfinity (Minimize adds an error wrapping
// ErrUnbounded). Otherwise MaxIterations bounds the iterations, 200 per variable by
// default as scipy's maxiter: the method then stops with optimize.IterationLimit and
// an error wrapping gonum's optimize.IterationLimit.Err().
type LineSearchNewtonCG struct {
	// HessVec applies the Hessian at a point; Minimize sets it, if nil, to the
	// objective's product of the chosen Curvature.
	HessVec HessVecFunc
	// Curvature is the product Minimize wires to HessVec when HessVec is nil.
	Curvature Curvature
	// Linesearcher finds the step along each Newton direction (default:
	// &optimize.MoreThuente{DecreaseFactor: 1e-4, CurvatureFactor: 0.9}). It is
	// given f and the directional derivative at every trial step.
	Linesearcher optimize.Linesearcher
	// GradStopThreshold stops the method when the infinity norm of the gradient is
	// below it (default 1e-10; NaN disables the check).
	GradStopThreshold float64
	// MaxCGIterations bounds the inner iterations (default: 20 times the
	// dimension, as scipy).
	MaxCGIterations int
	// MaxIterations bounds the outer iterations, one line search each (default:
	// 200 times the dimension, as scipy).
	MaxIterations int
	// Err, if set, reports a failure of the objective's evaluations (Minimize sets it
	// to Objective.Err).
	Err func() error

	// HVPs counts the curvature products of the last run, CGIterations the inner
	// iterations and Rejected the line-search trial points that were not taken.
	HVPs, CGIterations, Rejected int

	newtonMethod
}

// Init implements optimize.Method. LineSearchNewtonCG is sequential.
func (m *LineSearchNewtonCG) Init(dim, tasks int) int {
	m.HVPs, m.CGIterations, m.Rejected = 0, 0, 0
	return m.reset(dim, "LineSearchNewtonCG", m.run)
}

// wire sets HessVec and Err from obj where they are nil.
func (m *LineSearchNewtonCG) wire(obj *Objective) { wireProducts(obj, m.Curvature, &m.HessVec, &m.Err) }

// armijo is the sufficient-decrease constant of the line searches: MINPACK's and
// scipy's 1e-4.
const armijo = 1e-4

func (m *LineSearchNewtonCG) run(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Status, error) {
	n := m.dim
	ls := m.Linesearcher
	if ls == nil {
		ls = &optimize.MoreThuente{DecreaseFactor: armijo, CurvatureFactor: 0.9}
	}
	settings := newtonSettings{name: "LineSearchNewtonCG", hessVec: m.HessVec, err: m.Err, gradTol: m.GradStopThreshold, maxIterations: m.MaxIterations}

	p := make([]float64, n)
	best, gBest := make([]float64, n), make([]float64, n)
	cg := newSteihaug(n)
	var fOld float64 // the value before the last step
	started := false
	first := Iteration{Iter: 0, Radius: math.NaN()}
	return m.outer(operation, result, task, settings, first, func(it *iterate) (optimize.Status, error) {
		x, f, g := it.x, it.f, it.g
		if !started {
			fOld, started = f+floats.Norm(g, 2)/2, true // scipy's guess of the previous value
		}
		maxIter := m.MaxCGIterations
		if maxIter <= 0 {
			maxIter = 20 * n
		}
		iters, hvps, err := cg.newtonDirection(p, x, g, maxIter, m.HessVec)
		m.CGIterations += iters
		m.HVPs += hvps
		if err != nil {
			return optimize.Failure, err
		}
		slope := floats.Dot(g, p)
		if !(slope < 0) {
			// Rounding made the direction useless: fall back to steepest descent.
			for i := range p {
				p[i] = -g[i]
			}
			slope = -floats.Dot(g, g)
			if !(slope < 0) {
				// g^T g underflows: no descent that floating point can resolve
				// (and MoreThuente would panic on a zero slope).
				return optimize.StepConvergence, nil
			}
		}

		// Line search along p, from the Newton step 1 or, while f still falls
		// fast, from the step that a quadratic with the last decrease suggests.
		step := 1.0
		if a := 1.01 * 2 * (f - fOld) / slope; a > 0 && a < 1 {
			step = a
		}
		fOld = f
		ls.Init(f, slope, step)
		fBest, stepBest, rejected := f, 0.0, 0
		var lsErr, bad error // bad: why the last trial point was not finite
		// ceil: the shortest step of this search found to give a point that is not
		// finite; no later trial goes as far.
		ceil := math.Inf(1)
		pnorm := floats.Norm(p, 2)
		for trials := 0; ; trials++ {
			if trials == maxLineSearchTrials {
				lsErr = fmt.Errorf("hvp: the line search made %d trials without accepting a step", trials)
				if bad != nil {
					lsErr = fmt.Errorf("%w (%w)", bad, lsErr)
				}
				break
			}
			floats.AddScaledTo(it.trial, x, step, p)
			if bad != nil && (floats.Equal(it.trial, x) || step*pnorm < 1e-14*math.Max(1, floats.Norm(x, 2))) {
				// Every step led to a value or gradient that is not finite, down to
				// steps too short to resolve (NewtonCG's limit on its radius).
				return optimize.Failure, noShorterStep(bad)
			}
			if floats.Equal(it.trial, x) {
				// The step is too short to move x: it is as good as floating point
				// allows along this direction.
				return optimize.StepConvergence, nil
			}
			t, status, err := it.evalTrial()
			if err != nil {
				return status, err
			}
			ft := t.F
			if bad = trialErr(ft, t.Gradient); bad != nil {
				// Outside the domain, overflowing or at a kink: halve the step and
				// start the search over below it.
				rejected++
				ceil = math.Min(ceil, step)
				step /= 2
				ls.Init(f, slope, step)
				continue
			}
			if ft < fBest {
				fBest, stepBest = ft, step
				copy(best, it.trial)
				copy(gBest, t.Gradient)
			}
			if math.IsInf(ft, -1) {
				break // unbounded below: gonum stops with FunctionNegativeInfinity
			}
			op, next, err := ls.Iterate(ft, floats.Dot(t.Gradient, p))
			if err != nil {
				lsErr = err
				break
			}
			if op == optimize.MajorIteration {
				fBest, stepBest = ft, step // the point the search accepted
				copy(best, it.trial)
				copy(gBest, t.Gradient)
				break
			}
			if next >= ceil {
				// The search would go back where f or its gradient is not finite
				// (typically a minimum at the edge of the domain): backtrack
				// instead, taking this point if it decreases f enough (Armijo).
				if ft <= f+armijo*step*slope {
					fBest, stepBest = ft, step
					copy(best, it.trial)
					copy(gBest, t.Gradient)
					break
				}
				rejected++
				step /= 2
				ls.Init(f, slope, step)
				continue
			}
			rejected++
			step = next
		}
		m.Rejected += rejected
		if stepBest == 0 {
			// The search failed without decreasing f.
			if lsErr == nil {
				lsErr = errors.New("hvp: the line search found no decrease")
			}
			return optimize.Failure, lsErr
		}
		// The accepted point, or where a failed search found the least value.
		step = stepBest
		last := Iteration{Iter: m.last.Iter + 1, Step: step * pnorm, Radius: math.NaN(), StepSize: step,
			CGIterations: iters, HVPs: hvps, Rejected: rejected}
		if err := it.take(best, fBest, gBest, last); err != nil {
			return optimize.NotTerminated, err
		}
		if errors.Is(lsErr, optimize.ErrLinesearcherBound) && step*pnorm >= unboundedStep {
			// f still fell at the searcher's largest step, and that is a long way.
			return optimize.Failure, fmt.Errorf("%w: f fell to %v along a step of length %.3g, the line searcher's largest (%w)", ErrUnbounded, it.f, step*pnorm, lsErr)
		}
		return optimize.NotTerminated, nil
	})
}

// maxLineSearchTrials bounds the trial points of one line search.
const maxLineSearchTrials = 200

// newtonDirection stores in p an approximate solution of H p = -g by conjugate
// gradients from p = 0, truncated at the forcing tolerance min(1/2, sqrt(||g||_1))
// ||g||_1 on the residual's 1-norm (scipy's test) or at non-positive curvature; it
// returns the iterations and products used.
func (s *steihaug) newtonDirection(p, x, g []float64, maxIter int, hv HessVecFunc) (iters, hvps int, err error) {
	rr, _, tol := s.start(p, g, 1)
	for iters < maxIter {
		if floats.Norm(s.r, 1) <= tol {
			break
		}
		iters++
		hvps++
		if err := s.product(s.hd, x, s.d, hv); err != nil {
			return iters, hvps, err
		}
		dhd := floats.Dot(s.d, s.hd)
		if dhd <= 0 {
			if iters == 1 {
				// Negative curvature along -g itself: steepest descent, scaled as
				// scipy does by |g|^2 / |g^T H g| (or 1 for zero curvature).
				scale := 1.0
				if dhd < 0 {
					scale = rr / -dhd
				}
				for i := range p {
					p[i] = -scale * g[i]
				}
			}
			return iters, hvps, nil
		}
		alpha := rr / dhd
		floats.AddScaled(p, alpha, s.d)
		floats.AddScaled(s.r, alpha, s.hd)
		rrNew := floats.Dot(s.r, s.r)
		rr = s.nextDirection(rrNew, rr)
	}
	if iters == 0 {
		copy(p, s.d) // no inner iteration allowed: steepest descent
	}
	return iters, hvps, nil
}

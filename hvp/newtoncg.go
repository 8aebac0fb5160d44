package hvp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// HessVecFunc stores H(x) v in dst, where H(x) is the Hessian of the objective at x
// (or a stand-in for it, such as the Gauss-Newton matrix). Objective.HessVec and
// Objective.GaussNewtonVec are ones.
type HessVecFunc func(dst, x, v []float64) error

// Curvature chooses the curvature products of a Newton method that Minimize wires to
// an Objective.
type Curvature int

const (
	// HessianCurvature uses the exact Hessian: Objective.HessVec.
	HessianCurvature Curvature = iota
	// GaussNewtonCurvature uses the Gauss-Newton matrix J^T H_L J of an objective
	// made from a model and a loss (Objective.GaussNewtonVec; see GaussNewton). It is
	// positive semi-definite for a convex loss, so the inner conjugate gradients never
	// meet negative curvature, and it is the curvature of choice far from a minimum
	// of a non-convex model (a neural network); near a minimum the exact Hessian
	// converges faster.
	GaussNewtonCurvature
)

func (c Curvature) String() string {
	switch c {
	case HessianCurvature:
		return "Hessian"
	case GaussNewtonCurvature:
		return "Gauss-Newton"
	}
	return "Curvature(?)"
}

// productOf returns the product of the curvature c of obj.
func (c Curvature) productOf(obj *Objective) HessVecFunc {
	if c == GaussNewtonCurvature {
		return obj.GaussNewtonVec
	}
	return obj.HessVec
}

// NewtonCG is an optimize.Method that minimises with trust-region Newton-CG: at each
// iterate x with gradient g it approximately solves the trust-region subproblem
//
//	min_p  m(p) = f(x) + g^T p + 1/2 p^T H p   subject to  ||p|| <= Delta
//
// with the Steihaug-Toint truncated conjugate-gradient method, which needs only
// Hessian-vector products H d, stops at negative curvature or at the trust-region
// boundary, and otherwise at the relative residual min(1/2, sqrt(||g||)) (the
// Eisenstat-Walker forcing term, for superlinear convergence). The step is accepted
// when the ratio of actual to predicted reduction rho = (f(x) - f(x+p)) / (m(0) -
// m(p)) exceeds Eta, and Delta shrinks when rho < 1/4 and grows at the boundary when
// rho > 3/4 (Nocedal and Wright, Numerical Optimization, algorithms 4.1 and 7.2).
// Near a minimum where both reductions fall below the rounding of f (10 ulp), rho is
// noise: the step is then accepted if it reduces the gradient's norm.
// LineSearchNewtonCG is the line-search variant.
//
// gonum has no operation for Hessian-vector products, so NewtonCG calls HessVec
// itself; it asks gonum for function values and gradients, which gonum counts.
//
// It stops with optimize.Failure on the first error of HessVec or Err, on a NaN or
// infinite starting value or gradient (an error wrapping chainrules.ErrNonFinite and
// gonum's optimize.ErrFunc or optimize.ErrGrad), or on a Hessian-vector product
// that is not finite: it never reports convergence after one. A trial point whose
// value (NaN or +Inf) or gradient is not finite is rejected, and the region shrinks,
// as it does at any bad step; if the region becomes too small to move x with such a
// point last, the method fails with an error wrapping chainrules.ErrNonFinite. A
// panic of HessVec or Err, which run on gonum's goroutine, stops it with
// optimize.Failure and a *PanicError.
//
// It always stops. On an objective unbounded below, such as sum(x) or -|x|^2, every
// step is accepted and the radius grows to MaxRadius; the method stops there with
// optimize.Failure and an error wrapping ErrUnbounded when an accepted step of length
// at least 1e10 went to the boundary along a direction of non-positive curvature
// (where the model is unbounded below) with rho > 3/4, f falling as the model says;
// with MaxRadius below 1e10 that test never fires. A value of -Inf stops gonum with
// optimize.FunctionNegativeInfinity (Minimize adds an error wrapping ErrUnbounded).
// Otherwise MaxIterations bounds the iterations, each one subproblem and one trial
// point, taken or not: 200 per variable by default, scipy's maxiter for trust-ncg.
// The method then stops with optimize.IterationLimit and an error wrapping gonum's
// optimize.IterationLimit.Err() (gonum's own Settings.MajorIterations stops it with
// IterationLimit and no error, as it does every method).
//
// Its figures for each iteration (trust radius, CG iterations, products, rejected
// steps) reach a Printer or Trace given as gonum's Recorder (LastIteration).
type NewtonCG struct {
	// HessVec applies the Hessian at a point. Minimize sets it, if nil, to the
	// objective's product of the chosen Curvature; with optimize.Minimize it is
	// required. Objective.HessVec is one; it records with the registry of the
	// Transforms that made the Objective.
	HessVec HessVecFunc
	// Curvature is the product Minimize wires to HessVec when HessVec is nil: the
	// exact Hessian (the default) or the Gauss-Newton matrix.
	Curvature Curvature
	// InitialRadius is the first trust-region radius (default 1).
	InitialRadius float64
	// MaxRadius bounds the radius (default 1e10).
	MaxRadius float64
	// Eta is the acceptance threshold for rho, in [0, 1/4) (default 1e-4).
	Eta float64
	// GradStopThreshold stops the method when the infinity norm of the gradient is
	// below it (default 1e-10; NaN disables the check).
	GradStopThreshold float64
	// MaxCGIterations bounds the inner iterations (default: the dimension).
	MaxCGIterations int
	// MaxIterations bounds the outer iterations, accepted steps and rejected ones
	// (default: 200 times the dimension, as scipy's trust-ncg).
	MaxIterations int
	// Err, if set, reports a failure of the objective's evaluations (Objective.Err is
	// one; Minimize sets it): NewtonCG stops with optimize.Failure and that error as
	// soon as it is non-nil, instead of taking the NaNs of a failed evaluation for
	// values.
	Err func() error

	// HVPs counts the curvature products of the last run; CGIterations the inner
	// iterations; Rejected the rejected steps.
	HVPs, CGIterations, Rejected int

	newtonMethod
}

// Init implements optimize.Method. NewtonCG is sequential.
func (m *NewtonCG) Init(dim, tasks int) int {
	m.HVPs, m.CGIterations, m.Rejected = 0, 0, 0
	return m.reset(dim, "NewtonCG", m.run)
}

// wire sets HessVec and Err from obj where they are nil.
func (m *NewtonCG) wire(obj *Objective) { wireProducts(obj, m.Curvature, &m.HessVec, &m.Err) }

// eval sends one task and waits for its result; errStopped if gonum wants to stop.
func eval(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Task, error) {
	operation <- task
	r := <-result
	if r.Op == optimize.PostIteration {
		return r, errStopped
	}
	return r, nil
}

// start evaluates f and g at the starting point if gonum has not, and checks them:
// the common opening of both Newton methods. It returns f and a copy of x and g.
func start(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task, n int, hv HessVecFunc, evalErr func() error) (x []float64, f float64, g []float64, status optimize.Status, err error) {
	if hv == nil {
		return nil, 0, nil, optimize.Failure, cr.Errorf(cr.ErrInvalidArgument, "hvp: the Newton method's HessVec is nil (Minimize sets it from the objective)")
	}
	x = append([]float64(nil), task.X...)
	task.X = x
	if task.Op&optimize.FuncEvaluation == 0 || task.Op&optimize.GradEvaluation == 0 || task.Gradient == nil {
		task.Op = optimize.FuncEvaluation | optimize.GradEvaluation
		if task.Gradient == nil {
			task.Gradient = make([]float64, n)
		}
		if task, err = eval(operation, result, task); err != nil {
			return nil, 0, nil, optimize.NotTerminated, err
		}
	}
	if err := evalErr(); err != nil {
		return nil, 0, nil, optimize.Failure, err
	}
	f, g = task.F, append([]float64(nil), task.Gradient...)
	if math.IsNaN(f) || math.IsInf(f, 1) {
		return nil, 0, nil, optimize.Failure, nonFiniteStart(optimize.ErrFunc(f))
	}
	if i := indexNonFinite(g); i >= 0 {
		return nil, 0, nil, optimize.Failure, nonFiniteStart(optimize.ErrGrad{Grad: g[i], Index: i})
	}
	return x, f, g, optimize.NotTerminated, nil
}

// nonFiniteStart wraps gonum's error for a start point whose value (NaN or +Inf) or
// gradient is not finite, optimize.ErrFunc or optimize.ErrGrad, with
// chainrules.ErrNonFinite; it reads "non-finite value at the start point (optimize:
// initial function value is NaN)".
func nonFiniteStart(err error) error {
	return fmt.Errorf("%w at the start point (%w)", cr.ErrNonFinite, err)
}

// major reports the iterate (x, f, g) to gonum as a major iteration.
func major(operation chan<- optimize.Task, result <-chan optimize.Task, x []float64, f float64, g []float64) error {
	_, err := eval(operation, result, optimize.Task{
		Op:       optimize.MajorIteration,
		Location: &optimize.Location{X: x, F: f, Gradient: g},
	})
	return err
}

// trialErr says why a trial point with value f and gradient g cannot be taken (a
// value that is NaN or +Inf, a gradient that is not finite), or returns nil.
func trialErr(f float64, g []float64) error {
	if math.IsNaN(f) || math.IsInf(f, 1) {
		return cr.Errorf(cr.ErrNonFinite, "hvp: the function value at a trial point is %v", f)
	}
	if i := indexNonFinite(g); i >= 0 {
		return nonFiniteErr("the gradient at a trial point", i, g[i])
	}
	return nil
}

// noShorterStep is the error of a method that rejected trial points for err down to
// steps too short to move x.
func noShorterStep(err error) error {
	return fmt.Errorf("%w, and at every shorter step down to the rounding of x", err)
}

func (m *NewtonCG) run(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Status, error) {
	n := m.dim
	radius := orDefault(m.InitialRadius, 1)
	maxRadius := orDefault(m.MaxRadius, 1e10)
	eta := orDefault(m.Eta, 1e-4)
	settings := newtonSettings{name: "NewtonCG", hessVec: m.HessVec, err: m.Err, gradTol: m.GradStopThreshold, maxIterations: m.MaxIterations}

	p := make([]float64, n)
	cg := newSteihaug(n)
	var stepCG, stepHVPs, stepRejected int
	var bad error // why the last trial point was not finite, if it was not
	// Report the starting point as the first major iteration.
	first := Iteration{Iter: 0, Radius: radius, StepSize: math.NaN()}
	return m.outer(operation, result, task, settings, first, func(it *iterate) (optimize.Status, error) {
		x, f, g := it.x, it.f, it.g
		maxIter := m.MaxCGIterations
		if maxIter <= 0 {
			maxIter = n
		}
		pred, iters, hvps, err := cg.solve(p, x, g, radius, maxIter, m.HessVec)
		m.CGIterations += iters
		m.HVPs += hvps
		stepCG += iters
		stepHVPs += hvps
		if err != nil {
			return optimize.Failure, err
		}
		pnorm := floats.Norm(p, 2)
		floats.AddTo(it.trial, x, p)
		t, status, err := it.evalTrial()
		if err != nil {
			return status, err
		}
		fTrial := t.F
		rho := math.Inf(-1)
		bad = trialErr(fTrial, t.Gradient) // such a point is never taken, nor reported
		switch {
		case bad != nil:
		case math.IsInf(fTrial, -1):
			rho = math.Inf(1) // unbounded below: gonum stops with FunctionNegativeInfinity
		case pred > 0:
			rho = (f - fTrial) / pred
			if noise := 10 * 0x1p-52 * math.Abs(f); pred <= noise && math.Abs(f-fTrial) <= noise &&
				floats.Norm(t.Gradient, 2) < floats.Norm(g, 2) {
				// Both reductions are lost in the rounding of f, so rho is noise:
				// trust the model where the step reduces the gradient.
				rho = 1
			}
		}
		// A step to the boundary of a region of at least unboundedStep along a
		// direction where the model is unbounded below, and f fell as the model
		// says: f is unbounded below for any purpose floating point can serve.
		unbounded := cg.nonPositive && rho > 0.75 && pnorm >= 0.99*radius && radius >= unboundedStep
		radius = nextRadius(radius, maxRadius, rho, pnorm)
		if rho > eta {
			last := Iteration{Iter: m.last.Iter + 1, Step: pnorm, Radius: radius, StepSize: math.NaN(),
				CGIterations: stepCG, HVPs: stepHVPs, Rejected: stepRejected}
			stepCG, stepHVPs, stepRejected = 0, 0, 0
			if err := it.take(it.trial, fTrial, t.Gradient, last); err != nil {
				return optimize.NotTerminated, err
			}
			if unbounded {
				return optimize.Failure, fmt.Errorf("%w: f fell to %v along a step of length %.3g, to the trust region's boundary along a direction of non-positive curvature", ErrUnbounded, it.f, pnorm)
			}
		} else {
			m.Rejected++
			stepRejected++
		}
		if radius < 1e-14*math.Max(1, floats.Norm(it.x, 2)) {
			if bad != nil {
				// Every step, however short, led to a value or gradient that is not
				// finite: a failure, not convergence.
				return optimize.Failure, noShorterStep(bad)
			}
			// The model cannot be trusted at any resolvable step: x is as good as
			// floating point allows.
			return optimize.StepConvergence, nil
		}
		return optimize.NotTerminated, nil
	})
}

// nextRadius returns the trust radius after a step of length pnorm, taken in a region
// of radius radius, with rho the ratio of actual to predicted reduction (-Inf for a
// trial point that is not finite): Nocedal and Wright's algorithm 4.1, shrinking to
// the step actually taken and growing only after a step to the boundary,
//
//	Delta' = |p| / 4               if rho < 1/4,
//	Delta' = min(2 Delta, Dmax)    if rho > 3/4 and |p| >= 0.99 Delta,
//	Delta' = Delta                 otherwise.
func nextRadius(radius, maxRadius, rho, pnorm float64) float64 {
	switch {
	case rho < 0.25:
		return 0.25 * pnorm
	case rho > 0.75 && pnorm >= 0.99*radius:
		return math.Min(2*radius, maxRadius)
	}
	return radius
}

// unboundedStep is the length of a step along which f still falls as the Newton
// model predicts, beyond which the Newton methods call f unbounded below: NewtonCG's
// default MaxRadius.
const unboundedStep = 1e10

// maxIterations returns a Newton method's bound on its outer iterations: max, or 200
// per variable (scipy's default maxiter) if max <= 0.
func maxIterations(max, dim int) int {
	if max > 0 {
		return max
	}
	if dim > math.MaxInt/200 {
		return math.MaxInt
	}
	return 200 * dim
}

// iterationLimit is the outcome of a Newton method that made its MaxIterations
// iterations without converging.
func iterationLimit(name string, iters int) (optimize.Status, error) {
	return optimize.IterationLimit, fmt.Errorf("hvp: %s made %d iterations (MaxIterations) without converging: %w", name, iters, optimize.IterationLimit.Err())
}

func callErr(f func() error) error {
	if f == nil {
		return nil
	}
	return f()
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// steihaug holds the work vectors of the truncated CG solvers.
type steihaug struct {
	r, d, hd, hp []float64
	// nonPositive says that the last solve stopped at a direction of non-positive
	// curvature, d^T H d <= 0, and went to the boundary along it.
	nonPositive bool
}

func newSteihaug(n int) *steihaug {
	return &steihaug{r: make([]float64, n), d: make([]float64, n), hd: make([]float64, n), hp: make([]float64, n)}
}

// start sets up conjugate gradients on H p = -g from p = 0: the residual r = H p + g
// = g and the first direction d = -g. It returns r^T r, the q-norm of g and the
// forcing tolerance min(1/2, sqrt(|g|_q)) |g|_q on the residual's q-norm (q = 1 is
// scipy's test, q = 2 Steihaug's).
func (s *steihaug) start(p, g []float64, q float64) (rr, gnorm, tol float64) {
	clear(p)
	copy(s.r, g)
	for i := range s.d {
		s.d[i] = -g[i]
	}
	gnorm = floats.Norm(g, q)
	return floats.Dot(s.r, s.r), gnorm, math.Min(0.5, math.Sqrt(gnorm)) * gnorm
}

// nextDirection sets the direction to d = -r + beta d, with beta = rrNew / rr the
// ratio of the new residual's r^T r to the old, and returns rrNew.
func (s *steihaug) nextDirection(rrNew, rr float64) float64 {
	beta := rrNew / rr
	for i := range s.d {
		s.d[i] = -s.r[i] + beta*s.d[i]
	}
	return rrNew
}

// product applies hv to d into s.hd and checks the result.
func (s *steihaug) product(dst, x, d []float64, hv HessVecFunc) error {
	if err := hv(dst, x, d); err != nil {
		return err
	}
	return finite(dst)
}

// solve stores in p an approximate minimiser of g^T p + 1/2 p^T H p over ||p|| <=
// radius and returns the predicted reduction m(0) - m(p) > 0, the iterations and the
// HVPs used.
func (s *steihaug) solve(p, x, g []float64, radius float64, maxIter int, hv HessVecFunc) (pred float64, iters, hvps int, err error) {
	rr, gnorm, tol := s.start(p, g, 2)
	clear(s.hp) // H p
	s.nonPositive = false
	for iters < maxIter {
		iters++
		hvps++
		if err := s.product(s.hd, x, s.d, hv); err != nil {
			return 0, iters, hvps, err
		}
		dhd := floats.Dot(s.d, s.hd)
		if dhd <= 0 {
			// Negative curvature: go to the boundary along d.
			s.toBoundary(p, radius)
			s.nonPositive = true
			break
		}
		alpha := rr / dhd
		// Would p + alpha d leave the region?
		if norm2(p, alpha, s.d) >= radius*radius {
			s.toBoundary(p, radius)
			break
		}
		floats.AddScaled(p, alpha, s.d)
		floats.AddScaled(s.hp, alpha, s.hd)
		floats.AddScaled(s.r, alpha, s.hd)
		rrNew := floats.Dot(s.r, s.r)
		if math.Sqrt(rrNew) <= tol {
			break
		}
		rr = s.nextDirection(rrNew, rr)
	}
	if iters == 0 || floats.Norm(p, 2) == 0 {
		// No inner step (maxIter 0, or a zero gradient): take the Cauchy step along -g.
		s.nonPositive = false
		if gnorm == 0 {
			return 0, iters, hvps, nil
		}
		for i := range p {
			p[i] = -g[i] * radius / gnorm
		}
		hvps++
		if err := s.product(s.hp, x, p, hv); err != nil {
			return 0, iters, hvps, err
		}
	}
	// m(0) - m(p) = -(g.p + 1/2 p.Hp), with H p kept up to date along the way.
	return -(floats.Dot(g, p) + 0.5*floats.Dot(p, s.hp)), iters, hvps, nil
}

// finite returns an error if a Hessian-vector product holds a NaN or an infinity.
func finite(hv []float64) error {
	if i := indexNonFinite(hv); i >= 0 {
		return nonFiniteErr("the Hessian-vector product", i, hv[i])
	}
	return nil
}

func nonFiniteErr(what string, i int, v float64) error {
	return cr.Errorf(cr.ErrNonFinite, "hvp: %s is not finite (element %d is %v)", what, i, v)
}

func indexNonFinite(v []float64) int {
	for i, e := range v {
		if nonFinite(e) {
			return i
		}
	}
	return -1
}

// toBoundary moves p to p + tau d with tau >= 0 and ||p + tau d|| = radius, and
// updates H p to match.
func (s *steihaug) toBoundary(p []float64, radius float64) {
	a := floats.Dot(s.d, s.d)
	b := 2 * floats.Dot(p, s.d)
	c := floats.Dot(p, p) - radius*radius
	tau := (-b + math.Sqrt(b*b-4*a*c)) / (2 * a)
	floats.AddScaled(p, tau, s.d)
	floats.AddScaled(s.hp, tau, s.hd)
}

func norm2(p []float64, alpha float64, d []float64) float64 {
	s := 0.0
	for i := range p {
		v := p[i] + alpha*d[i]
		s += v * v
	}
	return s
}

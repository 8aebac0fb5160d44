package hvp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// HessVecFunc stores H(x) v in dst, where H(x) is the Hessian of the objective at x.
// Objective.HessVec is one.
type HessVecFunc func(dst, x, v []float64) error

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
//
// gonum has no operation for Hessian-vector products, so NewtonCG calls HessVec
// itself; it asks gonum for function values and gradients, which gonum counts.
//
// It stops with optimize.Failure on the first error of HessVec or Err, on a NaN or
// infinite starting value, on a gradient or Hessian-vector product that is not
// finite: it never reports convergence after one. (A trial point whose value is NaN
// is only rejected: the region shrinks, as it does at any bad step.)
type NewtonCG struct {
	// HessVec applies the Hessian at a point (required). Objective.HessVec is one; it
	// records with the registry of the Transforms that made the Objective.
	HessVec HessVecFunc
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
	// Err, if set, reports a failure of the objective's evaluations (Objective.Err is
	// one; Minimize sets it): NewtonCG stops with optimize.Failure and that error as
	// soon as it is non-nil, instead of taking the NaNs of a failed evaluation for
	// values.
	Err func() error

	// HVPs counts the Hessian-vector products of the last run; CGIterations the
	// inner iterations; Rejected the rejected steps.
	HVPs, CGIterations, Rejected int

	status optimize.Status
	err    error
	dim    int
}

var _ optimize.Method = (*NewtonCG)(nil)

// Init implements optimize.Method. NewtonCG is sequential.
func (m *NewtonCG) Init(dim, tasks int) int {
	m.dim = dim
	m.status, m.err = optimize.NotTerminated, nil
	m.HVPs, m.CGIterations, m.Rejected = 0, 0, 0
	return 1
}

// Uses implements optimize.Method: NewtonCG needs gradients (and HessVec).
func (m *NewtonCG) Uses(has optimize.Available) (optimize.Available, error) {
	if !has.Grad {
		return optimize.Available{}, optimize.ErrMissingGrad
	}
	return optimize.Available{Grad: true}, nil
}

// Status implements optimize.Statuser.
func (m *NewtonCG) Status() (optimize.Status, error) { return m.status, m.err }

// errStopped says gonum asked the method to stop.
var errStopped = errors.New("stopped by the caller")

// Run implements optimize.Method.
func (m *NewtonCG) Run(operation chan<- optimize.Task, result <-chan optimize.Task, tasks []optimize.Task) {
	status, err := m.run(operation, result, tasks[0])
	if !errors.Is(err, errStopped) {
		m.status, m.err = status, err
		if err == nil && status == optimize.NotTerminated {
			m.status = optimize.MethodConverge
		}
		// Tell gonum the method is done and wait for its PostIteration.
		operation <- optimize.Task{Op: optimize.MethodDone}
	}
	for range result { // read until gonum closes result, then close operation
	}
	close(operation)
}

// eval sends one task and waits for its result; errStopped if gonum wants to stop.
func eval(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Task, error) {
	operation <- task
	r := <-result
	if r.Op == optimize.PostIteration {
		return r, errStopped
	}
	return r, nil
}

func (m *NewtonCG) run(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Status, error) {
	if m.HessVec == nil {
		return optimize.Failure, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewtonCG: HessVec is nil")
	}
	n := m.dim
	radius := orDefault(m.InitialRadius, 1)
	maxRadius := orDefault(m.MaxRadius, 1e10)
	eta := orDefault(m.Eta, 1e-4)
	gradTol := orDefault(m.GradStopThreshold, 1e-10)

	x := append([]float64(nil), task.X...)
	task.X = x
	if task.Op&optimize.FuncEvaluation == 0 || task.Op&optimize.GradEvaluation == 0 || task.Gradient == nil {
		task.Op = optimize.FuncEvaluation | optimize.GradEvaluation
		if task.Gradient == nil {
			task.Gradient = make([]float64, n)
		}
		var err error
		if task, err = eval(operation, result, task); err != nil {
			return optimize.NotTerminated, err
		}
	}
	if err := m.evalErr(); err != nil {
		return optimize.Failure, err
	}
	f, g := task.F, append([]float64(nil), task.Gradient...)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return optimize.Failure, optimize.ErrFunc(f)
	}
	// Report the starting point as the first major iteration.
	task.Op = optimize.MajorIteration
	if _, err := eval(operation, result, task); err != nil {
		return optimize.NotTerminated, err
	}

	p, trial, gTrial := make([]float64, n), make([]float64, n), make([]float64, n)
	cg := newSteihaug(n)
	for {
		for i, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return optimize.Failure, optimize.ErrGrad{Grad: v, Index: i}
			}
		}
		if !math.IsNaN(gradTol) && floats.Norm(g, math.Inf(1)) < gradTol {
			return optimize.GradientThreshold, nil
		}
		maxIter := m.MaxCGIterations
		if maxIter <= 0 {
			maxIter = n
		}
		pred, iters, hvps, err := cg.solve(p, x, g, radius, maxIter, m.HessVec)
		m.CGIterations += iters
		m.HVPs += hvps
		if err != nil {
			return optimize.Failure, err
		}
		pnorm := floats.Norm(p, 2)
		floats.AddTo(trial, x, p)
		t, err := eval(operation, result, optimize.Task{
			Op:       optimize.FuncEvaluation | optimize.GradEvaluation,
			Location: &optimize.Location{X: trial, Gradient: gTrial},
		})
		if err != nil {
			return optimize.NotTerminated, err
		}
		if err := m.evalErr(); err != nil {
			return optimize.Failure, err
		}
		fTrial := t.F
		rho := math.Inf(-1)
		if pred > 0 && !math.IsNaN(fTrial) {
			rho = (f - fTrial) / pred
		}
		switch {
		case rho < 0.25:
			radius = 0.25 * pnorm
		case rho > 0.75 && pnorm >= 0.99*radius:
			radius = math.Min(2*radius, maxRadius)
		}
		if rho > eta {
			copy(x, trial)
			copy(g, t.Gradient)
			f = fTrial
			if _, err := eval(operation, result, optimize.Task{
				Op:       optimize.MajorIteration,
				Location: &optimize.Location{X: x, F: f, Gradient: g},
			}); err != nil {
				return optimize.NotTerminated, err
			}
		} else {
			m.Rejected++
		}
		if radius < 1e-14*math.Max(1, floats.Norm(x, 2)) {
			// The model cannot be trusted at any resolvable step: x is as good as
			// floating point allows.
			return optimize.StepConvergence, nil
		}
	}
}

// evalErr returns the objective's evaluation error, if Err is set and reports one.
func (m *NewtonCG) evalErr() error {
	if m.Err == nil {
		return nil
	}
	return m.Err()
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// steihaug holds the work vectors of the truncated CG solver.
type steihaug struct {
	r, d, hd, hp []float64
}

func newSteihaug(n int) *steihaug {
	return &steihaug{r: make([]float64, n), d: make([]float64, n), hd: make([]float64, n), hp: make([]float64, n)}
}

// solve stores in p an approximate minimiser of g^T p + 1/2 p^T H p over ||p|| <=
// radius and returns the predicted reduction m(0) - m(p) > 0, the iterations and the
// HVPs used.
func (s *steihaug) solve(p, x, g []float64, radius float64, maxIter int, hv HessVecFunc) (pred float64, iters, hvps int, err error) {
	for i := range p {
		p[i], s.hp[i] = 0, 0
	}
	copy(s.r, g) // r = H p + g
	for i := range s.d {
		s.d[i] = -g[i]
	}
	gnorm := floats.Norm(g, 2)
	tol := math.Min(0.5, math.Sqrt(gnorm)) * gnorm
	rr := floats.Dot(s.r, s.r)
	for iters < maxIter {
		iters++
		if err := hv(s.hd, x, s.d); err != nil {
			return 0, iters, hvps, err
		}
		hvps++
		if err := finite(s.hd); err != nil {
			return 0, iters, hvps, err
		}
		dhd := floats.Dot(s.d, s.hd)
		if dhd <= 0 {
			// Negative curvature: go to the boundary along d.
			s.toBoundary(p, radius)
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
		beta := rrNew / rr
		rr = rrNew
		for i := range s.d {
			s.d[i] = -s.r[i] + beta*s.d[i]
		}
	}
	if iters == 0 || floats.Norm(p, 2) == 0 {
		// No inner step (maxIter 0, or a zero gradient): take the Cauchy step along -g.
		if gnorm == 0 {
			return 0, iters, hvps, nil
		}
		for i := range p {
			p[i] = -g[i] * radius / gnorm
		}
		if err := hv(s.hp, x, p); err != nil {
			return 0, iters, hvps, err
		}
		hvps++
		if err := finite(s.hp); err != nil {
			return 0, iters, hvps, err
		}
	}
	// m(0) - m(p) = -(g.p + 1/2 p.Hp), with H p kept up to date along the way.
	return -(floats.Dot(g, p) + 0.5*floats.Dot(p, s.hp)), iters, hvps, nil
}

// finite returns an error if a Hessian-vector product holds a NaN or an infinity.
func finite(hv []float64) error {
	for i, v := range hv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return cr.Errorf(cr.ErrNonFinite, "hvp.NewtonCG: the Hessian-vector product is not finite (element %d is %v)", i, v)
		}
	}
	return nil
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

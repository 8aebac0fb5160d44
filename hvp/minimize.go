package hvp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// ErrUnbounded is the error of a minimisation whose objective is unbounded below, or
// as good as: a value of -Inf (Minimize), or a Newton method's step of at least 1e10
// along which f still falls as the method's model predicts (see NewtonCG and
// LineSearchNewtonCG). It wraps chainrules.ErrNonFinite, since the infimum is -Inf,
// and the errors that wrap it say what was seen.
var ErrUnbounded = fmt.Errorf("%w: hvp: the objective is unbounded below", cr.ErrNonFinite)

// Minimize is optimize.Minimize on obj.Problem() for an Objective, with the method
// (nil: gonum's default) and the recorder wired to it: a NewtonCG or
// LineSearchNewtonCG without HessVec gets the objective's product of its Curvature
// (obj.HessVec or obj.GaussNewtonVec) and one without Err gets obj.Err; a Printer or
// Trace without Method (alone or in Recorders) gets method.
//
// It returns gonum's result together with an error that holds the objective's first
// evaluation error, if any, and gonum's error: a failed evaluation is never reported
// as convergence (the result's Status is then optimize.Failure), and neither is a
// result whose value or gradient is not finite, whatever the method:
//
//   - a start point whose value is NaN or +Inf, or whose gradient is not finite,
//     fails with an error wrapping chainrules.ErrNonFinite (and gonum's
//     optimize.ErrFunc or optimize.ErrGrad);
//   - a result whose value is NaN or +Inf, or whose gradient is not finite, fails
//     with an error wrapping chainrules.ErrNonFinite;
//   - a result whose value is -Inf keeps gonum's status
//     optimize.FunctionNegativeInfinity (a convergence status becomes it) and comes
//     with an error wrapping ErrUnbounded, and so chainrules.ErrNonFinite.
//
// When the method reported no iteration (a start that failed), gonum's result holds a
// location of zeros; Minimize returns the start point instead, with the value and
// gradient the objective computed there (NaN and nil if it computed none). An empty
// x0 is an error wrapping chainrules.ErrInvalidArgument (gonum would panic).
//
// Without a gradient threshold of the caller's (nil settings, or
// Settings.GradientThreshold 0), gonum stops at |g|∞ < 1e-12, which rounding often
// puts out of reach: its line searches (BFGS, LBFGS, CG) then fail to find a
// decrease of f at a point that is already a minimum to working precision, and
// report optimize.Failure with "linesearch: failed to converge" or "no change in
// location". Minimize reports such a stop as optimize.Success, with no error, when
// the gradient there is below StalledGradientTol (torch.optim.LBFGS's default
// tolerance_grad); a line search that fails with a larger gradient stays a
// failure, and so does every stop when the caller set a GradientThreshold.
//
// Every method of this package stops in bounded time; see NewtonCG and
// LineSearchNewtonCG for their iteration limits and their tests of unboundedness.
func Minimize(obj *Objective, x0 []float64, settings *optimize.Settings, method optimize.Method) (*optimize.Result, error) {
	if obj == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.Minimize: the objective is nil")
	}
	if len(x0) == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.Minimize: the start point is empty")
	}
	switch m := method.(type) {
	case *NewtonCG:
		if m != nil {
			m.wire(obj)
		}
	case *LineSearchNewtonCG:
		if m != nil {
			m.wire(obj)
		}
	}
	if settings != nil {
		wireRecorder(settings.Recorder, method)
	}
	res, err := optimize.Minimize(obj.Problem(), x0, settings, method)
	err = fromGonum(err)
	if oerr := obj.Err(); oerr != nil {
		switch {
		case err == nil:
			err = oerr
		case !errors.Is(err, oerr):
			err = errors.Join(oerr, err)
		}
		if res != nil {
			res.Status = optimize.Failure
		}
	}
	if res == nil {
		return nil, err
	}
	if stalledAtMinimum(res, err, settings) && obj.Err() == nil {
		res.Status, err = optimize.Success, nil
	}
	if res.Stats.MajorIterations == 0 {
		// gonum's location is its zero value: return the start point.
		res.X = slices.Clone(x0)
		res.F, res.Gradient = obj.cached(x0)
	}
	switch {
	case res.Status != optimize.Failure && !finiteResult(res):
		// gonum's convergence tests take a NaN for "not converged", but a method of
		// its own may still stop with a convergence status there (a function
		// converger sees the values only).
		res.Status = optimize.Failure
		err = errors.Join(err, errNonFiniteResult(res))
	case math.IsInf(res.F, -1) && !errors.Is(err, ErrUnbounded):
		if res.Status != optimize.Failure {
			res.Status = optimize.FunctionNegativeInfinity
		}
		err = errors.Join(err, fmt.Errorf("%w: f is -Inf at the result", ErrUnbounded))
	}
	return res, err
}

// StalledGradientTol is the largest |g|∞ at which Minimize, with gonum's default
// gradient threshold, takes a line search that can no longer decrease f for
// convergence (see Minimize). It is torch.optim.LBFGS's tolerance_grad.
const StalledGradientTol = 1e-7

// stalledAtMinimum reports whether gonum stopped because its line search could make
// no more progress, at a finite point whose gradient is below StalledGradientTol,
// under the default gradient threshold.
func stalledAtMinimum(res *optimize.Result, err error, settings *optimize.Settings) bool {
	if res.Status != optimize.Failure || res.Stats.MajorIterations == 0 || len(res.Gradient) == 0 || !finiteResult(res) {
		return false
	}
	if settings != nil && settings.GradientThreshold != 0 {
		return false
	}
	if !errors.Is(err, optimize.ErrLinesearcherFailure) && !errors.Is(err, optimize.ErrNoProgress) {
		return false
	}
	for _, g := range res.Gradient {
		if math.Abs(g) > StalledGradientTol {
			return false
		}
	}
	return true
}

// fromGonum wraps with chainrules.ErrNonFinite gonum's errors for a start point whose
// value or gradient is not finite, which gonum's own methods return as they are.
func fromGonum(err error) error {
	if err == nil || errors.Is(err, cr.ErrNonFinite) {
		return err
	}
	var ef optimize.ErrFunc
	var eg optimize.ErrGrad
	if errors.As(err, &ef) || errors.As(err, &eg) {
		return nonFiniteStart(err)
	}
	return err
}

func finiteResult(res *optimize.Result) bool {
	if math.IsNaN(res.F) || math.IsInf(res.F, 1) {
		return false
	}
	return !slices.ContainsFunc(res.Gradient, nonFinite)
}

func errNonFiniteResult(res *optimize.Result) error {
	if i := indexNonFinite(res.Gradient); i >= 0 {
		return nonFiniteErr("the result's gradient", i, res.Gradient[i])
	}
	return nonFiniteErr("the result's value", 0, res.F)
}

// wireRecorder sets the Method of a Printer or Trace (or of those in Recorders) that
// has none.
func wireRecorder(r optimize.Recorder, method optimize.Method) {
	switch r := r.(type) {
	case *Printer:
		if r != nil && r.Method == nil {
			r.Method = method
		}
	case *Trace:
		if r != nil && r.Method == nil {
			r.Method = method
		}
	case Recorders:
		for _, ri := range r {
			wireRecorder(ri, method)
		}
	}
}

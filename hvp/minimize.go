package hvp

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Minimize is optimize.Minimize on obj.Problem() for an Objective, with the method
// (nil: gonum's default) and the recorder wired to it: a NewtonCG or
// LineSearchNewtonCG without HessVec gets the objective's product of its Curvature
// (obj.HessVec or obj.GaussNewtonVec) and one without Err gets obj.Err; a Printer or
// Trace without Method (alone or in Recorders) gets method.
//
// It returns gonum's result together with an error that holds the objective's first
// evaluation error, if any, and gonum's error: a failed evaluation is never reported
// as convergence (the result's Status is then optimize.Failure), and neither is a
// result whose value or gradient is not finite, whatever the method (the error then
// wraps chainrules.ErrNonFinite).
func Minimize(obj *Objective, x0 []float64, settings *optimize.Settings, method optimize.Method) (*optimize.Result, error) {
	if obj == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.Minimize: the objective is nil")
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
	if res != nil && res.Status != optimize.Failure && !finiteResult(res) {
		// gonum's convergence tests take a NaN for "not converged", but a method of
		// its own may still stop with a convergence status there (a function
		// converger sees the values only).
		res.Status = optimize.Failure
		err = errors.Join(err, errNonFiniteResult(res))
	}
	return res, err
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

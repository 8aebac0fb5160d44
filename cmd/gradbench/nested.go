package main

import (
	"errors"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// This file holds what the particle and saddle evals share: GradBench's
// gradient descent (the solver of its C++ and Futhark tools: a step of size eta
// along -grad, accepted if it lowers f; eta halves on a rejected step and
// doubles after ten accepted ones; it stops when |grad| or the step is at most
// 1e-5), both on values and recorded on a tape so that an outer derivative
// can go through it, and the gradients of either mode.

// gradMode names how a gradient is taken: 'r' reverse (one sweep), 'f'
// forward (one sweep per coordinate, along the unit vectors).
type gradMode byte

// maxSolverSteps bounds the solver: an input on which it does not converge
// is an error, not a hang.
const maxSolverSteps = 1 << 16

var errNoConvergence = errors.New("gradient descent did not converge")

// argmin is the solver on values, from x0: it evaluates the objective f at a
// point with value and its gradient with gradient in the given mode.
func argmin(mode gradMode, f hvp.Func, x0 []float64) ([]float64, error) {
	x := append([]float64(nil), x0...)
	fx, err := value(f, x)
	if err != nil {
		return nil, err
	}
	gx, err := gradient(mode, f, x)
	if err != nil {
		return nil, err
	}
	eta, i := 1e-5, 0
	xp := make([]float64, len(x))
	for range maxSolverSteps {
		if norm(gx) <= 1e-5 {
			return x, nil
		}
		if i == 10 {
			eta, i = 2*eta, 0
			continue
		}
		d := 0.0
		for j := range x {
			xp[j] = x[j] - eta*gx[j]
			d += (x[j] - xp[j]) * (x[j] - xp[j])
		}
		if math.Sqrt(d) <= 1e-5 {
			return x, nil
		}
		fxp, err := value(f, xp)
		if err != nil {
			return nil, err
		}
		if fxp < fx {
			copy(x, xp)
			fx = fxp
			if gx, err = gradient(mode, f, x); err != nil {
				return nil, err
			}
			i++
		} else {
			eta, i = eta/2, 0
		}
	}
	return nil, errNoConvergence
}

func norm(v []float64) float64 {
	s := 0.0
	for _, a := range v {
		s += a * a
	}
	return math.Sqrt(s)
}

// recFunc is a scalar function of one vector node recorded on t.
type recFunc func(t *hvp.Tape, x cr.NodeID) cr.NodeID

func (f recFunc) func1() hvp.Func {
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return f(t, x[0]) }
}

// recGrad records the gradient of f at x (a vector of n elements) on t, in
// the given mode: hvp.GradOf, or hvp.JVPOf along each unit vector. The result
// is a node like any other, so an outer derivative goes through it.
func recGrad(mode gradMode, f recFunc, t *hvp.Tape, x cr.NodeID, n int) cr.NodeID {
	if mode == 'r' {
		return hvp.GradOf(f.func1())(t, []cr.NodeID{x})[0]
	}
	parts := make([]cr.NodeID, n)
	for i := range parts {
		e := make([]float64, n)
		e[i] = 1
		parts[i] = hvp.JVPOf(f.func1())(t, []cr.NodeID{x}, []cr.NodeID{t.Constant(vector(e))})
	}
	return t.Apply(index.StackOp(0), parts...)
}

// recArgmin records the solver on t from x0 (a vector of n elements), the
// gradient of f taken in the given mode; its decisions read the recorded
// values, and the returned point is a node of the recording.
func recArgmin(mode gradMode, f recFunc, t *hvp.Tape, x0 cr.NodeID, n int) cr.NodeID {
	val := func(id cr.NodeID) []float64 {
		v, err := t.Value(id)
		if err != nil {
			return nil
		}
		return v.Float64s()
	}
	x := x0
	fx := f(t, x)
	gx := recGrad(mode, f, t, x, n)
	eta, i := 1e-5, 0
	for range maxSolverSteps {
		if t.Err() != nil {
			return x
		}
		if norm(val(gx)) <= 1e-5 {
			return x
		}
		if i == 10 {
			eta, i = 2*eta, 0
			continue
		}
		xp := t.Apply(elementwise.SubOp, x, t.Apply(elementwise.ScaleOp(eta), gx))
		xv, xpv := val(x), val(xp)
		d := 0.0
		for j := range xv {
			d += (xv[j] - xpv[j]) * (xv[j] - xpv[j])
		}
		if math.Sqrt(d) <= 1e-5 {
			return x
		}
		fxp := f(t, xp)
		if val(fxp)[0] < val(fx)[0] {
			x, fx = xp, fxp
			gx = recGrad(mode, f, t, x, n)
			i++
		} else {
			eta, i = eta/2, 0
		}
	}
	t.Apply(cr.FailOp[*tensor.Dense]("argmin", errNoConvergence))
	return x
}

// value evaluates f at x on a tape that records (f may take gradients inside).
func value(f hvp.Func, x []float64) (float64, error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(ops.Default())
	out := f(t, []cr.NodeID{t.Leaf(vector(x))})
	if err := t.Err(); err != nil {
		return 0, err
	}
	v, err := t.Value(out)
	if err != nil {
		return 0, err
	}
	return scalarOf(v)
}

// gradient returns the gradient of f at x in the given mode: hvp.Grad, or
// hvp.JVP along each unit vector.
func gradient(mode gradMode, f hvp.Func, x []float64) ([]float64, error) {
	in := []*tensor.Dense{vector(x)}
	if mode == 'r' {
		_, g, err := hvp.Grad(f, in)
		if err != nil {
			return nil, err
		}
		return flat(g[0]), nil
	}
	g := make([]float64, len(x))
	for i := range g {
		e := make([]float64, len(x))
		e[i] = 1
		_, d, err := hvp.JVP(f, in, []*tensor.Dense{vector(e)})
		if err != nil {
			return nil, err
		}
		if g[i], err = scalarOf(d); err != nil {
			return nil, err
		}
	}
	return g, nil
}

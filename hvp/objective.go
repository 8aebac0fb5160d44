package hvp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Objective adapts a scalar Func of one float64 tensor of a fixed shape to gonum's
// optimize package, whose functions take flat []float64 points (row-major).
//
// gonum's callbacks cannot return errors, so a failing evaluation (an op error, a
// non-scalar or complex output) makes Func return NaN and Grad and Hess fill NaN, and
// keeps the first error for Err. The Problem's Status reports that error, so gonum
// stops at once with optimize.Failure and returns it (Minimize does the same for any
// optimize.Method). Destinations of the wrong length are the caller's bug: Grad and
// Hess panic, as gonum's own problems do, and HessVec returns an error.
//
// Evaluations at the same point share one recording (the two most recent points are
// kept): Grad after Func at the same x runs only the reverse sweep. The counters report how much work was done.
type Objective struct {
	f     Func
	shape []int
	tr    Transforms // the registry the recordings use

	// The two most recent recordings, newest first: a trust-region method evaluates a
	// trial point and, if it rejects it, goes on applying the Hessian at the current
	// one.
	cache [2]recording

	err     error // the first evaluation error
	invalid error // a bad shape given to NewObjective
	dim     int   // the number of variables

	// Recordings, Gradients and HVPs count the forward recordings of f, reverse
	// sweeps and Hessian-vector products.
	Recordings, Gradients, HVPs int
}

// NewObjective returns the objective x -> f(x) for x of the given shape. A shape
// with no elements, a negative dimension or more elements than an int counts makes
// every evaluation fail (Func returns NaN and Err reports ErrInvalidArgument). It
// records with the default registry; see Transforms.NewObjective.
func NewObjective(f Func, shape ...int) *Objective {
	return defaults().NewObjective(f, shape...)
}

// NewObjective is the package-level NewObjective, recording with tr's registry: its
// Func, Grad, Hess and HessVec (and so a NewtonCG given HessVec) all see the
// registry's overrides.
func (tr Transforms) NewObjective(f Func, shape ...int) *Objective {
	o := &Objective{f: f, shape: slices.Clone(shape), tr: tr}
	n, err := tensor.ShapeSize(shape...)
	switch {
	case err != nil:
		o.invalid = fmt.Errorf("hvp.NewObjective: %w", err)
	case n == 0:
		o.invalid = cr.Errorf(cr.ErrInvalidArgument, "hvp.NewObjective: shape %v has no elements", shape)
	}
	o.dim = n
	return o
}

// Err returns the first error met while evaluating.
func (o *Objective) Err() error { return o.err }

// ClearErr forgets the evaluation error, so that the objective can be used in a new
// optimisation (while Err is set, the Problem's Status fails every one).
func (o *Objective) ClearErr() { o.err = nil }

// Dim returns the number of variables (0 for an invalid shape).
func (o *Objective) Dim() int { return o.dim }

func (o *Objective) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

type recording struct {
	x  []float64
	op *Operator
}

// at returns the recording of f at x, reusing a cached one if x was seen last or
// second to last.
func (o *Objective) at(x []float64) (*Operator, error) {
	if o.invalid != nil {
		return nil, o.invalid
	}
	for i, c := range o.cache {
		if c.op != nil && slices.Equal(c.x, x) {
			o.cache[0], o.cache[i] = o.cache[i], o.cache[0]
			return c.op, nil
		}
	}
	if len(x) != o.Dim() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.Objective: point of length %d, want %d", len(x), o.Dim())
	}
	xt, err := tensor.FromFloat64(slices.Clone(x), o.shape...)
	if err != nil {
		return nil, err
	}
	op, err := o.tr.NewOperator(o.f, xt)
	if err != nil {
		return nil, err
	}
	o.Recordings++
	o.cache[1] = o.cache[0]
	o.cache[0] = recording{x: slices.Clone(x), op: op}
	return op, nil
}

// Func returns f(x), or NaN on error (a complex output is one: minimise its real
// part).
func (o *Objective) Func(x []float64) float64 {
	op, err := o.at(x)
	if err != nil {
		o.fail(err)
		return math.NaN()
	}
	return real(op.value.At(make([]int, op.value.Rank())...))
}

// Grad stores the gradient of f at x in grad, or NaNs on error. Like gonum's own
// problems it panics if len(grad) != len(x).
func (o *Objective) Grad(grad, x []float64) {
	if len(grad) != len(x) {
		panic(fmt.Sprintf("hvp: Objective.Grad: gradient of length %d for a point of length %d", len(grad), len(x)))
	}
	g, err := o.grad(x)
	if err != nil {
		o.fail(err)
		for i := range grad {
			grad[i] = math.NaN()
		}
		return
	}
	copy(grad, g)
}

func (o *Objective) grad(x []float64) ([]float64, error) {
	op, err := o.at(x)
	if err != nil {
		return nil, err
	}
	if op.grad == nil {
		o.Gradients++
	}
	g, err := op.Grad()
	if err != nil {
		return nil, err
	}
	return g[0].Contiguous().Float64s(), nil
}

// HessVec stores H(x) v in dst: one Hessian-vector product, reusing the recording at x.
// dst, x and v must have length Dim (an error wrapping ErrShapeMismatch otherwise),
// and a product that is not finite is an error.
func (o *Objective) HessVec(dst, x, v []float64) error {
	if len(dst) != len(x) || len(v) != len(x) {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp.Objective.HessVec: dst of length %d and direction of length %d for a point of length %d",
			len(dst), len(v), len(x))
	}
	op, err := o.at(x)
	if err != nil {
		return err
	}
	vt, err := tensor.FromFloat64(slices.Clone(v), o.shape...)
	if err != nil {
		return err
	}
	hv, err := op.Apply(vt)
	if err != nil {
		return err
	}
	o.HVPs++
	copy(dst, hv[0].Contiguous().Float64s())
	return nil
}

// Hess stores the dense Hessian at x in dst, built from n Hessian-vector products
// (for small n), or NaNs on error. Like gonum's own problems it panics if dst's
// dimension is not len(x).
func (o *Objective) Hess(dst *mat.SymDense, x []float64) {
	if d := dst.SymmetricDim(); d != len(x) {
		panic(fmt.Sprintf("hvp: Objective.Hess: Hessian of dimension %d for a point of length %d", d, len(x)))
	}
	n := len(x)
	fill := func(err error) {
		o.fail(err)
		for i := range n {
			for k := i; k < n; k++ {
				dst.SetSym(i, k, math.NaN())
			}
		}
	}
	if _, err := o.at(x); err != nil {
		fill(err)
		return
	}
	cols := make([][]float64, n)
	e := make([]float64, n)
	for j := range n {
		e[j] = 1
		cols[j] = make([]float64, n)
		if err := o.HessVec(cols[j], x, e); err != nil {
			fill(err)
			return
		}
		e[j] = 0
	}
	for i := range n {
		for k := i; k < n; k++ {
			dst.SetSym(i, k, 0.5*(cols[k][i]+cols[i][k]))
		}
	}
}

// Problem returns the optimize.Problem with Func, Grad, Hess and Status. Status
// reports the first evaluation error (optimize.Failure and Err), so that gonum stops
// after the evaluation that failed and returns the error.
func (o *Objective) Problem() optimize.Problem {
	return optimize.Problem{Func: o.Func, Grad: o.Grad, Hess: o.Hess, Status: o.status}
}

func (o *Objective) status() (optimize.Status, error) {
	if o.err != nil {
		return optimize.Failure, o.err
	}
	return optimize.NotTerminated, nil
}

// Minimize is optimize.Minimize on obj.Problem() for an Objective, with the method
// (nil: gonum's default) wired to it: a NewtonCG without HessVec gets obj.HessVec,
// and a NewtonCG without Err gets obj.Err. It returns gonum's result together with
// an error that holds the objective's first evaluation error, if any, and gonum's
// error: a failed evaluation is never reported as convergence (the result's Status
// is then optimize.Failure).
func Minimize(obj *Objective, x0 []float64, settings *optimize.Settings, method optimize.Method) (*optimize.Result, error) {
	if m, ok := method.(*NewtonCG); ok && m != nil {
		if m.HessVec == nil {
			m.HessVec = obj.HessVec
		}
		if m.Err == nil {
			m.Err = obj.Err
		}
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
	return res, err
}

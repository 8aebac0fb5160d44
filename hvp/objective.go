package hvp

import (
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
// non-scalar output) makes Func return NaN and Grad fill NaN — which gonum reports as
// a failure — and keeps the first error for Err.
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

	// Recordings, Gradients and HVPs count the forward recordings of f, reverse
	// sweeps and Hessian-vector products.
	Recordings, Gradients, HVPs int
}

// NewObjective returns the objective x -> f(x) for x of the given shape. A shape
// with no elements, or a negative dimension, makes every evaluation fail (Func
// returns NaN and Err reports ErrInvalidArgument). It records with the default
// registry; see Transforms.NewObjective.
func NewObjective(f Func, shape ...int) *Objective {
	return defaults().NewObjective(f, shape...)
}

// NewObjective is the package-level NewObjective, recording with tr's registry: its
// Func, Grad, Hess and HessVec (and so a NewtonCG given HessVec) all see the
// registry's overrides.
func (tr Transforms) NewObjective(f Func, shape ...int) *Objective {
	o := &Objective{f: f, shape: slices.Clone(shape), tr: tr}
	if slices.ContainsFunc(shape, func(d int) bool { return d < 0 }) {
		o.invalid = cr.Errorf(cr.ErrInvalidArgument, "hvp.NewObjective: negative dimension in shape %v", shape)
	} else if o.Dim() == 0 {
		o.invalid = cr.Errorf(cr.ErrInvalidArgument, "hvp.NewObjective: shape %v has no elements", shape)
	}
	return o
}

// Err returns the first error met while evaluating.
func (o *Objective) Err() error { return o.err }

// Dim returns the number of variables.
func (o *Objective) Dim() int {
	n := 1
	for _, d := range o.shape {
		n *= d
	}
	return n
}

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

// Func returns f(x) (the real part, for a complex output), or NaN on error.
func (o *Objective) Func(x []float64) float64 {
	op, err := o.at(x)
	if err != nil {
		o.fail(err)
		return math.NaN()
	}
	return real(op.value.At(make([]int, op.value.Rank())...))
}

// Grad stores the gradient of f at x in grad, or NaNs on error.
func (o *Objective) Grad(grad, x []float64) {
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
func (o *Objective) HessVec(dst, x, v []float64) error {
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
// (for small n), or NaNs on error.
func (o *Objective) Hess(dst *mat.SymDense, x []float64) {
	n := o.Dim()
	if _, err := o.at(x); err != nil {
		o.fail(err)
		for i := range dst.SymmetricDim() {
			for k := i; k < dst.SymmetricDim(); k++ {
				dst.SetSym(i, k, math.NaN())
			}
		}
		return
	}
	cols := make([][]float64, n)
	e := make([]float64, n)
	for j := range n {
		e[j] = 1
		cols[j] = make([]float64, n)
		if err := o.HessVec(cols[j], x, e); err != nil {
			o.fail(err)
			for i := range n {
				for k := i; k < n; k++ {
					dst.SetSym(i, k, math.NaN())
				}
			}
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

// Problem returns the optimize.Problem with Func, Grad and Hess.
func (o *Objective) Problem() optimize.Problem {
	return optimize.Problem{Func: o.Func, Grad: o.Grad, Hess: o.Hess}
}

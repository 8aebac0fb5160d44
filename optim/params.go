package optim

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// paramSet is the parameter set an optimiser updates: the tensors, and their
// elements as slices that alias the tensors' storage (so that writing them updates
// the parameters in place). grads holds the element slices of the gradients of the
// current step; it is allocated once, so that Step allocates nothing.
type paramSet struct {
	op     string
	params []*tensor.Dense
	data   [][]float64
	grads  [][]float64
	steps  int // steps taken
}

// newParamSet checks that params is a non-empty set of contiguous float64 tensors
// and returns the set over their storage.
func newParamSet(op string, params []*tensor.Dense) (paramSet, error) {
	if len(params) == 0 {
		return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: empty parameter set", op)
	}
	ps := paramSet{op: op, params: slices.Clone(params), data: make([][]float64, len(params)), grads: make([][]float64, len(params))}
	for k, p := range params {
		switch {
		case p == nil:
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d is nil", op, k)
		case p.DType() != tensor.Float64:
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d has dtype %v, want float64", op, k, p.DType())
		case !p.IsContiguous():
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d (shape %v, strides %v) is not contiguous: it cannot be updated in place", op, k, p.Shape(), p.Strides())
		}
		ps.data[k] = p.Float64s()
	}
	return ps, nil
}

// state allocates one zero buffer the size of each parameter.
func (ps *paramSet) state() [][]float64 {
	n := 0
	for _, d := range ps.data {
		n += len(d)
	}
	flat := make([]float64, n)
	out := make([][]float64, len(ps.data))
	for k, d := range ps.data {
		out[k], flat = flat[:len(d):len(d)], flat[len(d):]
	}
	return out
}

// load checks grads against the parameter set (count, nil, dtype, shape) and
// points ps.grads at their elements. It checks every gradient before the caller
// updates any parameter, so that a bad gradient leaves the set untouched. A
// non-contiguous gradient is copied (one allocation); a contiguous one is not.
func (ps *paramSet) load(grads []*tensor.Dense) error {
	if len(grads) != len(ps.params) {
		return cr.Errorf(cr.ErrShapeMismatch, "optim.%s: %d gradients for %d parameters", ps.op, len(grads), len(ps.params))
	}
	for k, g := range grads {
		switch {
		case g == nil:
			return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: gradient %d is nil", ps.op, k)
		case g.DType() != tensor.Float64:
			return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: gradient %d has dtype %v, want float64", ps.op, k, g.DType())
		case !slices.Equal(g.Shape(), ps.params[k].Shape()):
			return cr.Errorf(cr.ErrShapeMismatch, "optim.%s: gradient %d has shape %v, parameter %d has shape %v", ps.op, k, g.Shape(), k, ps.params[k].Shape())
		}
	}
	for k, g := range grads {
		ps.grads[k] = g.Float64s()
	}
	return nil
}

// Steps returns the number of steps taken.
func (ps *paramSet) Steps() int { return ps.steps }

// Params returns the parameter set the optimiser updates (the caller's tensors).
func (ps *paramSet) Params() []*tensor.Dense { return slices.Clone(ps.params) }

func checkLR(op string, lr float64) error {
	if !(lr >= 0) || lr > maxFinite {
		return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: learning rate %v: want a finite lr >= 0", op, lr)
	}
	return nil
}

// nonNegative checks a hyperparameter that must be finite and >= 0.
func nonNegative(op, name string, v float64) error {
	if !(v >= 0) || v > maxFinite {
		return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: %s %v: want a finite value >= 0", op, name, v)
	}
	return nil
}

// unitInterval checks a hyperparameter that must lie in [0, 1).
func unitInterval(op, name string, v float64) error {
	if !(v >= 0 && v < 1) {
		return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: %s %v: want 0 <= %s < 1", op, name, v, name)
	}
	return nil
}

const maxFinite = 1.7976931348623157e308

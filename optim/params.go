package optim

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// float is the element type of a parameter set's tensors: float64, or float32 for
// a single-precision set, whose updates and state are float32 as torch's are.
type float interface{ float32 | float64 }

// sqrt is math.Sqrt in T: for float32, the square root rounded once to float32 (the
// double-precision root of a float32 is exact enough that rounding it again gives
// the correctly rounded float32 root).
func sqrt[T float](x T) T { return T(math.Sqrt(float64(x))) }

// bufs holds one slice per parameter of the set, of the parameter's dtype: f64[k]
// for a float64 parameter k, f32[k] for a float32 one (the other is nil).
type bufs struct {
	f64 [][]float64
	f32 [][]float32
}

func newBufs(n int) bufs { return bufs{f64: make([][]float64, n), f32: make([][]float32, n)} }

// paramSet is the parameter set an optimiser updates: the tensors, and their
// elements as slices that alias the tensors' storage (so that writing them updates
// the parameters in place). grads holds the element slices of the gradients of the
// current step; it is allocated once, so that Step allocates nothing. single[k]
// reports whether parameter k is float32 (its data, gradients and state are then
// in the f32 slices of bufs).
type paramSet struct {
	op     string
	params []*tensor.Dense
	single []bool
	data   bufs
	grads  bufs
	steps  int // steps taken
}

// newParamSet checks that params is a non-empty set of contiguous float64 or
// float32 tensors and returns the set over their storage.
func newParamSet(op string, params []*tensor.Dense) (paramSet, error) {
	if len(params) == 0 {
		return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: empty parameter set", op)
	}
	n := len(params)
	ps := paramSet{op: op, params: slices.Clone(params), single: make([]bool, n), data: newBufs(n), grads: newBufs(n)}
	for k, p := range params {
		switch {
		case p == nil:
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d is nil", op, k)
		case p.DType() != tensor.Float64 && p.DType() != tensor.Float32:
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d has dtype %v, want float64 or float32", op, k, p.DType())
		case !p.IsContiguous():
			return paramSet{}, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: parameter %d (shape %v, strides %v) is not contiguous: it cannot be updated in place", op, k, p.Shape(), p.Strides())
		}
		if p.DType() == tensor.Float32 {
			ps.single[k] = true
			ps.data.f32[k] = p.Float32s()
		} else {
			ps.data.f64[k] = p.Float64s()
		}
	}
	return ps, nil
}

// state allocates one zero buffer the size of each parameter, of its dtype.
func (ps *paramSet) state() bufs {
	n64, n32 := 0, 0
	for k, p := range ps.params {
		if ps.single[k] {
			n32 += p.Size()
		} else {
			n64 += p.Size()
		}
	}
	flat64, flat32 := make([]float64, n64), make([]float32, n32)
	out := newBufs(len(ps.params))
	for k, p := range ps.params {
		n := p.Size()
		if ps.single[k] {
			out.f32[k], flat32 = flat32[:n:n], flat32[n:]
		} else {
			out.f64[k], flat64 = flat64[:n:n], flat64[n:]
		}
	}
	return out
}

// load checks grads against the parameter set (count, nil, dtype, shape) and
// points ps.grads at their elements. It checks every gradient before the caller
// updates any parameter, so that a bad gradient leaves the set untouched. A
// non-contiguous gradient is copied (one allocation); a contiguous one is not. A
// gradient must have its parameter's dtype: a float64 gradient of a float32
// parameter (or the reverse) is an error, not a silent conversion.
func (ps *paramSet) load(grads []*tensor.Dense) error {
	if len(grads) != len(ps.params) {
		return cr.Errorf(cr.ErrShapeMismatch, "optim.%s: %d gradients for %d parameters", ps.op, len(grads), len(ps.params))
	}
	for k, g := range grads {
		switch {
		case g == nil:
			return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: gradient %d is nil", ps.op, k)
		case g.DType() != ps.params[k].DType():
			return cr.Errorf(cr.ErrInvalidArgument, "optim.%s: gradient %d has dtype %v, parameter %d is %v", ps.op, k, g.DType(), k, ps.params[k].DType())
		case !slices.Equal(g.Shape(), ps.params[k].Shape()):
			return cr.Errorf(cr.ErrShapeMismatch, "optim.%s: gradient %d has shape %v, parameter %d has shape %v", ps.op, k, g.Shape(), k, ps.params[k].Shape())
		}
	}
	for k, g := range grads {
		if ps.single[k] {
			ps.grads.f32[k] = g.Float32s()
		} else {
			ps.grads.f64[k] = g.Float64s()
		}
	}
	return nil
}

// Steps returns the number of steps taken.
func (ps *paramSet) Steps() int { return ps.steps }

// Params returns the parameter set the optimiser updates (the caller's tensors).
func (ps *paramSet) Params() []*tensor.Dense { return slices.Clone(ps.params) }

// setLR sets *dst, the learning rate in an optimiser's config, to lr after
// checkLR: the SetLR of every optimiser.
func (ps *paramSet) setLR(dst *float64, lr float64) error {
	if err := checkLR(ps.op, lr); err != nil {
		return err
	}
	*dst = lr
	return nil
}

// checkLR checks a learning rate: finite and >= 0.
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

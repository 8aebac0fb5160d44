package tensor

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// The creation functions below are PyTorch's factory functions of the same names.
// Their results are constants: to use one in a recorded function, put it on the
// tape with core.Tape.Constant (no gradient flows to it), or with Leaf to
// differentiate with respect to it.

// Eye returns PyTorch's torch.eye(n, m): the n x m float64 matrix with ones on the
// main diagonal and zeros elsewhere (Eye(n, n) is the identity; AsComplex makes it
// complex128). A negative n or m is an error wrapping chainrules.ErrInvalidArgument.
func Eye(n, m int) (*Dense, error) {
	if n < 0 || m < 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "eye: negative size %d x %d", n, m)
	}
	t, err := Alloc(Float64, n, m)
	if err != nil {
		return nil, err
	}
	d := t.f64s()
	for i := range min(n, m) {
		d[i*m+i] = 1
	}
	return t, nil
}

// Arange returns PyTorch's torch.arange(start, end, step): the float64 vector
//
//	start, start + step, start + 2 step, ...   up to but excluding end,
//
// of ceil((end - start) / step) elements (element i is start + i*step with one
// rounding, a fused multiply-add, as in PyTorch's kernel). A zero or non-finite step, a non-finite start or end, or a step whose
// sign leads away from end is an error wrapping chainrules.ErrInvalidArgument; so
// is a length larger than memory can hold. start == end gives an empty vector.
func Arange(start, end, step float64) (*Dense, error) {
	if !finite(start) || !finite(end) || !finite(step) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "arange: start %g, end %g and step %g must be finite", start, end, step)
	}
	if step == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "arange: step must be nonzero")
	}
	if (end > start && step < 0) || (end < start && step > 0) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "arange: step %g does not lead from start %g to end %g", step, start, end)
	}
	size := math.Ceil((end - start) / step)
	if !(size < 1<<53) { // exact in float64; Alloc refuses what memory cannot hold
		return nil, cr.Errorf(cr.ErrInvalidArgument, "arange: %g elements from %g to %g by %g", size, start, end, step)
	}
	t, err := Alloc(Float64, int(size))
	if err != nil {
		return nil, err
	}
	d := t.f64s()
	for i := range d {
		d[i] = math.FMA(float64(i), step, start) // fused, as PyTorch's kernel
	}
	return t, nil
}

// Linspace returns PyTorch's torch.linspace(start, end, steps): the float64 vector of
// steps evenly spaced values from start to end, both included,
//
//	x_i = start + i (end - start) / (steps - 1),   i = 0, ..., steps - 1,
//
// computed as PyTorch does (the first half from start, the second half back from
// end, so that x_{steps-1} is end exactly; values agree with torch's to 2 ulp). steps = 1 gives [start], steps = 0 an
// empty vector. A negative steps or a non-finite start or end is an error wrapping
// chainrules.ErrInvalidArgument.
func Linspace(start, end float64, steps int) (*Dense, error) {
	if steps < 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "linspace: number of steps %d is negative", steps)
	}
	if !finite(start) || !finite(end) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "linspace: start %g and end %g must be finite", start, end)
	}
	t, err := Alloc(Float64, steps)
	if err != nil {
		return nil, err
	}
	if steps == 1 {
		t.f64s()[0] = start
		return t, nil
	}
	step := (end - start) / float64(steps-1)
	half := steps / 2
	d := t.f64s()
	for i := range d {
		// Fused multiply-adds, as PyTorch's kernel.
		if i < half {
			d[i] = math.FMA(step, float64(i), start)
		} else {
			d[i] = math.FMA(-step, float64(steps-1-i), end)
		}
	}
	return t, nil
}

// EyeOf is Eye with a dtype: torch.eye(n, m, dtype=dt). An invalid dtype is an error
// wrapping chainrules.ErrInvalidArgument.
func EyeOf(dt DType, n, m int) (*Dense, error) {
	t, err := Eye(n, m)
	if err != nil {
		return nil, err
	}
	return AsType(t, dt)
}

// ArangeOf is Arange with a dtype: torch.arange(start, end, step, dtype=dt). The
// elements are computed in float64, as Arange does, and rounded to dt once (torch
// computes in double for float32 too). An invalid dtype is an error wrapping
// chainrules.ErrInvalidArgument.
func ArangeOf(dt DType, start, end, step float64) (*Dense, error) {
	return roundedTo("arange", dt, func() (*Dense, error) { return Arange(start, end, step) })
}

// LinspaceOf is Linspace with a dtype: torch.linspace(start, end, steps, dtype=dt).
// The elements are computed in float64, as Linspace does, and rounded to dt once. An
// invalid dtype is an error wrapping chainrules.ErrInvalidArgument.
func LinspaceOf(dt DType, start, end float64, steps int) (*Dense, error) {
	return roundedTo("linspace", dt, func() (*Dense, error) { return Linspace(start, end, steps) })
}

// roundedTo returns the float64 tensor that compute makes, rounded to dt once,
// after checking dt: an invalid dtype is an error of op wrapping
// chainrules.ErrInvalidArgument.
func roundedTo(op string, dt DType, compute func() (*Dense, error)) (*Dense, error) {
	if !dt.Valid() {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: invalid dtype %v", op, dt)
	}
	t, err := compute()
	if err != nil {
		return nil, err
	}
	return AsType(t, dt)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

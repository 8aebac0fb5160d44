package ruletest

import (
	"fmt"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// stencil is the 5-point central difference: f'(0) ~ sum_j w_j f(s_j h) / h.
var stencil = [4]struct{ s, w float64 }{{-2, 1.0 / 12}, {-1, -8.0 / 12}, {1, 8.0 / 12}, {2, -1.0 / 12}}

// fd returns the 5-point central difference of g(x + e dirs) at e = 0, where g maps
// the moved inputs to a list of values (the output, or the pullback per input).
func (c *checker[V]) fd(dirs []V, present []bool, g func(x []V, e float64) ([]V, error)) ([]V, error) {
	h := c.tol.step * math.Sqrt(math.Max(1, c.maxAbs(present)))
	var acc []V
	for _, st := range stencil {
		e := st.s * h
		x := make([]V, len(c.inputs))
		for k, xk := range c.inputs {
			x[k] = xk
			if present[k] {
				moved, err := c.space.Add(xk, c.space.Scale(dirs[k], e))
				if err != nil {
					return nil, err
				}
				x[k] = moved
			}
		}
		vals, err := g(x, e)
		if err != nil {
			return nil, fmt.Errorf("evaluating at step %g: %w", e, err)
		}
		if acc == nil {
			acc = make([]V, len(vals))
			for i, v := range vals {
				acc[i] = c.space.Zero(v)
			}
		}
		if len(vals) != len(acc) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%d values at one step, %d at another", len(vals), len(acc))
		}
		for i, v := range vals {
			if acc[i], err = c.space.Add(acc[i], c.space.Scale(v, st.w/h)); err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

// fdJVP returns J dirs by finite differences of the primal, for the selected
// outputs (the other slots hold V's zero value).
func (c *checker[V]) fdJVP(dirs []V, present []bool) ([]V, error) {
	vals, err := c.fd(dirs, present, func(x []V, _ float64) ([]V, error) {
		ys, _, err := c.apply(x)
		if err != nil {
			return nil, err
		}
		var out []V
		for m, on := range c.sel.on {
			if !on {
				continue
			}
			y := ys[m]
			if !slices.Equal(c.space.Shape(y), c.space.Shape(c.ys[m])) || c.space.DType(y) != c.space.DType(c.ys[m]) {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "output %d is %s near the point, %s at it", m, c.space.Describe(y), c.space.Describe(c.ys[m]))
			}
			out = append(out, y)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]V, len(c.ys))
	i := 0
	for m, on := range c.sel.on {
		if on {
			out[m] = vals[i]
			i++
		}
	}
	return out, nil
}

func (c *checker[V]) fromElems(like V, e []complex128) (V, error) {
	v, ok, err := fromElements(c.space, like, e)
	if err == nil && !ok {
		err = cr.Errorf(cr.ErrInvalidArgument, "no element access for %s", c.space.Describe(like))
	}
	return v, err
}

// basis returns the unit vector of element i of like, times unit (1 or i).
func (c *checker[V]) basis(like V, i int, unit complex128) (V, error) {
	e := make([]complex128, c.space.Size(like))
	e[i] = unit
	return c.fromElems(like, e)
}

// fdGradient returns the finite-difference gradient of <ybar, f(x)> in x_k.
func (c *checker[V]) fdGradient(k int, ybar []V) ([]complex128, error) {
	n := c.space.Size(c.inputs[k])
	grad := make([]complex128, n)
	units := []complex128{1}
	if c.cplx[k] {
		units = append(units, 1i)
	}
	for i := range n {
		for _, u := range units {
			b, err := c.basis(c.inputs[k], i, u)
			if err != nil {
				return nil, err
			}
			jv, err := c.fdJVP(c.only(k, b))
			if err != nil {
				return nil, err
			}
			d, _, err := c.innerOut(ybar, jv)
			if err != nil {
				return nil, err
			}
			grad[i] += complex(d, 0) * u
		}
	}
	return grad, nil
}

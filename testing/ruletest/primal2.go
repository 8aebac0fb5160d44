package ruletest

import (
	"fmt"
	"math"
)

// checkSecondPrimal checks the second-order rule against the primal alone: for
// phi(x) = Re<ybar, f(x)> and random directions u and v, <v, H u> from
// PullbackWithTangents (with ybardot zero) must equal the mixed second difference
// of phi along u and v, a 5-point stencil of 5-point stencils. Unlike
// second-order-fd, which differentiates Pullback and so trusts the pullbacks at
// the points around x, it reads nothing but primal values, so a rule that is
// right only at the first point it was applied to (a stale cache of
// derivatives) fails it.
func (c *checker[V]) checkSecondPrimal(r anyRule[V]) {
	_, _, soName := c.methodNames()
	var fail *Failure
	for d := range c.cfg.Directions {
		ybar := c.unitOut()
		u, present := c.joint()
		v, _ := c.joint()
		_, hu, err := c.secondOf(r, c.dualOut(ybar, nil), u, present)
		if err != nil {
			fail = &Failure{Detail: soName + " failed", Err: err}
			break
		}
		exact, bound, err := c.innerSum(v, hu, present)
		if err != nil {
			fail = &Failure{Detail: "inner product failed", Err: err}
			break
		}
		phi := func(x []V) (float64, error) {
			ys, _, err := c.apply(x)
			if err != nil {
				return 0, err
			}
			s := 0.0
			for m, on := range c.sel.on {
				if on {
					p, err := c.space.Inner(ybar[m], ys[m])
					if err != nil {
						return 0, err
					}
					s += p
				}
			}
			return s, nil
		}
		h := c.tol.step * math.Sqrt(math.Max(1, c.maxAbs(present)))
		mixed, err := c.fdScalar(c.inputs, v, present, h, func(x []V) (float64, error) {
			return c.fdScalar(x, u, present, h, phi)
		})
		if err != nil {
			fail = &Failure{Detail: "the second difference of the primal failed", Err: err}
			break
		}
		if f := compareScalar(exact, mixed, math.Max(bound, math.Abs(mixed)), c.tol.atol, 10*c.tol.rtol); f != nil {
			f.Detail = fmt.Sprintf("<v, H u> from %s (got) vs the mixed second difference of Re<ybar, f(x)> (want), direction %d; %s", soName, d, f.Detail)
			fail = f
			break
		}
	}
	c.add(CheckSecondOrderPrimal, "", fail)
}

// fdScalar returns the 5-point central difference of g(base + e dir) at e = 0,
// with step h.
func (c *checker[V]) fdScalar(base, dir []V, present []bool, h float64, g func(x []V) (float64, error)) (float64, error) {
	acc := 0.0
	for _, st := range stencil {
		e := st.s * h
		x := make([]V, len(base))
		for k, xk := range base {
			x[k] = xk
			if present[k] {
				moved, err := c.space.Add(xk, c.space.Scale(dir[k], e))
				if err != nil {
					return 0, err
				}
				x[k] = moved
			}
		}
		v, err := g(x)
		if err != nil {
			return 0, fmt.Errorf("evaluating at step %g: %w", e, err)
		}
		acc += v * st.w / h
	}
	return acc, nil
}

package ruletest

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// checkSecondOrder checks r's second-order rule (r has one) against the finite
// difference of the pullback along the input tangents and the cotangent tangents
// (unless noFD), and the symmetry <u, H v> == <v, H u> of the Hessian of
// phi(x) = Re sum_m <ybar_m, f_m(x)> over the outputs of the round.
func (c *checker[V]) checkSecondOrder(r anyRule[V], noFD bool) {
	_, _, soName := c.methodNames()
	if !noFD {
		fails := make([]*Failure, len(c.inputs))
		for d := range c.cfg.Directions {
			dirs, present := c.joint()
			variants := [][]V{dirs}
			if iv, ok := c.jointI(dirs, present); ok {
				variants = append(variants, iv)
			}
			for vi, v := range variants {
				for _, withTangent := range []bool{true, false} {
					var ct []cr.Dual[V]
					if withTangent {
						ct = c.dualOut(c.unitOut(), c.unitOut())
					} else {
						ct = c.dualOut(c.unitOut(), nil)
					}
					where := fmt.Sprintf("direction %d (%s v, ybardot %s)", d, []string{"real", "imaginary"}[vi], map[bool]string{true: "random", false: "absent"}[withTangent])
					c.secondFD(ct, v, present, where, fails)
				}
			}
		}
		for k := range c.inputs {
			if c.diff[k] {
				c.add(CheckSecondOrderFD, fmt.Sprintf("x%d", k), fails[k])
			}
		}
		c.guard(CheckSecondOrderPrimal, func() { c.checkSecondPrimal(r) })
	}
	var fail *Failure
	for d := range c.cfg.Directions {
		ybar := c.unitOut()
		u, present := c.joint()
		v, _ := c.joint()
		if iv, ok := c.jointI(v, present); ok && d%2 == 1 {
			v = iv
		}
		_, hv, err1 := c.second(c.dualOut(ybar, nil), v, present)
		_, hu, err2 := c.second(c.dualOut(ybar, nil), u, present)
		if err := firstErr(err1, err2); err != nil {
			fail = &Failure{Detail: soName + " failed", Err: err}
			break
		}
		uhv, b1, err1 := c.innerSum(u, hv, present)
		vhu, b2, err2 := c.innerSum(v, hu, present)
		if err := firstErr(err1, err2); err != nil {
			fail = &Failure{Detail: "inner product failed", Err: err}
			break
		}
		if f := compareScalar(uhv, vhu, b1+b2, c.tol.exactAtol, c.tol.exactRtol); f != nil {
			f.Detail = fmt.Sprintf("<u, H v> (got) vs <v, H u> (want) for phi(x) = Re<ybar, f(x)>, direction %d; %s", d, f.Detail)
			fail = f
			break
		}
	}
	c.add(CheckHessianSymmetry, "", fail)
}

// secondFD compares xbardot from the second-order rule with the 5-point difference
// of Pullback(x + e v, ybar + e ybardot), recording the first failure per input.
func (c *checker[V]) secondFD(ct []cr.Dual[V], v []V, present []bool, where string, fails []*Failure) {
	pbName, _, soName := c.methodNames()
	setAll := func(f *Failure) {
		for k := range fails {
			if c.diff[k] && fails[k] == nil {
				g := *f
				g.Input = c.label(k)
				fails[k] = &g
			}
		}
	}
	_, xbardot, err := c.second(ct, v, present)
	if err != nil {
		setAll(&Failure{Detail: soName + " failed", Err: err})
		return
	}
	ref, err := c.fd(v, present, func(x []V, e float64) ([]V, error) {
		_, r, err := c.apply(x)
		if err != nil {
			return nil, err
		}
		ybar := make([]V, len(ct))
		for m, d := range ct {
			if !c.sel.on[m] {
				continue
			}
			ybar[m] = d.Value
			if d.HasTangent {
				if ybar[m], err = c.space.Add(d.Value, c.space.Scale(d.Tangent, e)); err != nil {
					return nil, err
				}
			}
		}
		return c.pullbackOf(r, ybar)
	})
	if err != nil {
		setAll(&Failure{Detail: "finite difference of the pullback failed", Err: err})
		return
	}
	for k := range c.inputs {
		if !c.diff[k] || fails[k] != nil {
			continue
		}
		if f := c.compareVec(xbardot[k], ref[k], c.tol.atol, c.tol.rtol, 0); f != nil {
			f.Input = c.label(k)
			f.Detail = fmt.Sprintf("%s tangent (got) vs finite difference of %s (want) along %s; %s", soName, pbName, where, f.Detail)
			fails[k] = f
		}
	}
}

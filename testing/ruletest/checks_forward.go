package ruletest

import (
	"fmt"
	"slices"
)

// checkForward checks r's forward rule (r has one) against finite differences
// (unless noFD), output by output, and against the pullback through
// <ybar, J v> == <J^* ybar, v>, for a direction on each differentiable input alone
// and on all of them together.
func (c *checker[V]) checkForward(r anyRule[V], noFD bool) {
	_, fwName, _ := c.methodNames()
	type job struct {
		in      string
		label   string
		present []bool
		cplx    bool
	}
	var jobs []job
	for k, x := range c.inputs {
		if c.diff[k] {
			_, p := c.only(k, x)
			jobs = append(jobs, job{fmt.Sprintf("x%d", k), c.label(k), p, c.cplx[k]})
		}
	}
	if len(jobs) > 1 {
		_, p := c.joint()
		jobs = append(jobs, job{"all", "all inputs together", p, slices.Contains(c.cplx, true)})
	}
	for _, jb := range jobs {
		var fdFail, adjFail *Failure
		for d := range c.cfg.Directions {
			dirs, present := c.joint()
			for k := range dirs {
				if !jb.present[k] {
					dirs[k], present[k] = *new(V), false
				}
			}
			dirs = c.renormalize(dirs, present)
			variants := [][]V{dirs}
			if iv, ok := c.jointI(dirs, present); ok && jb.cplx {
				variants = append(variants, iv)
			}
			for vi, v := range variants {
				where := fmt.Sprintf("direction %d (%s)", d, []string{"real", "imaginary"}[vi])
				ydot, err := c.forward(v, present)
				if err != nil {
					f := &Failure{Input: jb.label, Detail: fwName + " failed", Err: err}
					fdFail, adjFail = f, f
					break
				}
				if !noFD && fdFail == nil {
					jv, err := c.fdJVP(v, present)
					if err != nil {
						fdFail = &Failure{Input: jb.label, Detail: "finite difference failed", Err: err}
					} else if f := c.compareOut(ydot, jv, c.sel.on, c.tol.atol, c.tol.rtol); f != nil {
						f.Input, f.Detail = jb.label, fmt.Sprintf("%s (got) vs finite difference (want) along %s; %s", fwName, where, f.Detail)
						fdFail = f
					}
				}
				if adjFail == nil {
					adjFail = c.forwardAdjoint(jb.label, where, ydot, v, present)
				}
			}
		}
		if !noFD {
			c.add(CheckForwardFD, jb.in, fdFail)
		}
		c.add(CheckForwardAdjoint, jb.in, adjFail)
	}
}

// forwardAdjoint checks <ybar, ydot> == sum_k <J_k^* ybar, v_k> for a random ybar.
func (c *checker[V]) forwardAdjoint(label, where string, ydot, v []V, present []bool) *Failure {
	pbName, fwName, _ := c.methodNames()
	for _, yv := range c.variantsOut(c.unitOut()) {
		xbar, err := c.pullback(yv.v)
		if err != nil {
			return &Failure{Input: label, Detail: pbName + " failed", Err: err}
		}
		lhs, b1, err1 := c.innerOut(yv.v, ydot)
		rhs, b2, err2 := c.innerSum(xbar, v, present)
		if err := firstErr(err1, err2); err != nil {
			return &Failure{Input: label, Detail: "inner product failed", Err: err}
		}
		if f := compareScalar(lhs, rhs, b1+b2, c.tol.exactAtol, c.tol.exactRtol); f != nil {
			f.Input = label
			f.Detail = fmt.Sprintf("<ybar, %s(v)> (got) vs <%s(ybar), v> (want) along %s with %s ybar; %s", fwName, pbName, where, yv.name, f.Detail)
			return f
		}
	}
	return nil
}

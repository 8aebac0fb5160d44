package ruletest

import (
	"fmt"
	"math"
)

// checkLinearity checks Pullback(a y1 + b y2) == a Pullback(y1) + b Pullback(y2)
// for random real a, b, and Pullback(0) == 0, per input.
func (c *checker[V]) checkLinearity() {
	pbName, _, _ := c.methodNames()
	y1, y2 := c.unitOut(), c.unitOut()
	a, b := 0.5+1.5*c.rng.Float64(), -(0.5 + 1.5*c.rng.Float64())
	mix, err := c.combineOut(a, y1, b, y2)
	var p1, p2, p, p0 []V
	if err == nil {
		p1, err = c.pullback(y1)
	}
	if err == nil {
		p2, err = c.pullback(y2)
	}
	if err == nil {
		p, err = c.pullback(mix)
	}
	if err == nil {
		p0, err = c.pullback(c.zeroOut())
	}
	if err != nil {
		c.fail(CheckLinearity, "", pbName+" failed", err)
		return
	}
	for k := range c.inputs {
		if !c.diff[k] {
			continue
		}
		in := fmt.Sprintf("x%d", k)
		want, err := c.space.Add(c.space.Scale(p1[k], a), c.space.Scale(p2[k], b))
		if err != nil {
			c.fail(CheckLinearity, in, "adding cotangents failed", err)
			continue
		}
		// Rounding is relative to the terms, not to their possibly cancelling sum.
		floor := math.Abs(a)*c.norm(p1[k]) + math.Abs(b)*c.norm(p2[k])
		f := c.compareVec(p[k], want, c.tol.exactAtol, c.tol.exactRtol, floor)
		if f != nil {
			f.Input, f.Detail = c.label(k), fmt.Sprintf("%s(%.3g y1 %+.3g y2) != %.3g %s(y1) %+.3g %s(y2): %s", pbName, a, b, a, pbName, b, pbName, f.Detail)
		}
		c.add(CheckLinearity, in, f)
		f = c.compareVec(p0[k], c.space.Zero(c.inputs[k]), c.tol.exactAtol, 0, 0)
		if f != nil {
			f.Input, f.Detail = c.label(k), pbName+" of a zero cotangent is not zero: "+f.Detail
		}
		c.add(CheckZeroCotangent, in, f)
	}
}

// describeDir names a direction variant for failure details.
func describeDir(d int, yv, vv string) string {
	return fmt.Sprintf("direction %d (%s ybar, %s v)", d, yv, vv)
}

// checkAdjointFD checks <ybar, J_k v>_fd == <J_k^* ybar, v> per differentiable
// input k, along random unit directions (and i times them for complex values),
// where for several outputs <ybar, J v> = sum_m <ybar_m, J_mk v> over the outputs
// of the round.
func (c *checker[V]) checkAdjointFD() {
	for k, x := range c.inputs {
		if !c.diff[k] {
			continue
		}
		in := fmt.Sprintf("x%d", k)
		f := func() *Failure {
			for d := range c.cfg.Directions {
				ybar, v := c.unitOut(), c.unit(x)
				for _, yv := range c.variantsOut(ybar) {
					for _, vv := range c.variants(v, c.cplx[k]) {
						xbar, err := c.pullback(yv.v)
						if err != nil {
							return &Failure{Input: c.label(k), Detail: "Pullback failed", Err: err}
						}
						jv, err := c.fdJVP(c.only(k, vv.v))
						if err != nil {
							return &Failure{Input: c.label(k), Detail: "finite difference failed", Err: err}
						}
						lhs, b1, err1 := c.innerOut(yv.v, jv)
						rhs, b2, err2 := c.inner(xbar[k], vv.v)
						if err1 != nil || err2 != nil {
							return &Failure{Input: c.label(k), Detail: "inner product failed", Err: firstErr(err1, err2)}
						}
						if f := compareScalar(rhs, lhs, b1+b2, c.tol.atol, c.tol.rtol); f != nil {
							f.Input = c.label(k)
							f.Detail = fmt.Sprintf("<J* ybar, v> (got) vs <ybar, J v>_fd (want) along %s; %s", describeDir(d, yv.name, vv.name), f.Detail)
							c.worstGradientElement(k, yv.v, xbar[k], f)
							return f
						}
					}
				}
			}
			return nil
		}()
		c.add(CheckAdjointFD, in, f)
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// maxWorstElementSize bounds the inputs for which a failed adjoint check computes
// the whole finite-difference gradient to name the worst element.
const maxWorstElementSize = 64

// worstGradientElement refines a failed adjoint check on a small input: it computes
// the gradient of phi(x) = <ybar, f(x)> in x_k element by element (d phi/d Re x_i +
// i d phi/d Im x_i, the PyTorch convention) and names the element where the
// pullback is furthest from it.
func (c *checker[V]) worstGradientElement(k int, ybar []V, xbar V, f *Failure) {
	if !c.hasEl || c.space.Size(c.inputs[k]) > maxWorstElementSize {
		return
	}
	grad, err := c.fdGradient(k, ybar)
	if err != nil {
		return
	}
	g, err := c.fromElems(c.inputs[k], grad)
	if err != nil {
		return
	}
	if w := c.compareVec(xbar, g, 0, 0, 0); w != nil && w.HasValues {
		f.Index, f.Got, f.Want, f.HasValues = w.Index, w.Got, w.Want, true
		f.Detail += "; worst element of J* ybar (got) against the finite-difference gradient (want)"
	}
}

// checkJacobian compares the full Jacobian from finite differences (columns) with
// the one from the pullback (rows), in real coordinates, over the outputs of the
// round.
func (c *checker[V]) checkJacobian() {
	if c.cfg.FullJacobianMaxSize <= 0 {
		c.skip(CheckJacobian, "", "opt in with Config.FullJacobianMaxSize")
		return
	}
	total := 0
	for m, on := range c.sel.on {
		if on {
			total += c.space.Size(c.ys[m])
		}
	}
	for _, x := range c.inputs {
		total += c.space.Size(x)
	}
	if total > c.cfg.FullJacobianMaxSize {
		c.skip(CheckJacobian, "", fmt.Sprintf("%d elements > Config.FullJacobianMaxSize %d", total, c.cfg.FullJacobianMaxSize))
		return
	}
	hasEl := c.hasEl
	for m, on := range c.sel.on {
		if _, ok := elements(c.space, c.ys[m]); on && !ok {
			hasEl = false
		}
	}
	if !hasEl {
		c.skip(CheckJacobian, "", "the value type has no element access (see ElementSpace)")
		return
	}
	parts := func(cplx bool) []complex128 {
		if cplx {
			return []complex128{1, 1i}
		}
		return []complex128{1}
	}
	// coord projects z onto the real coordinate u: Re(conj(u) z).
	coord := func(u, z complex128) float64 { return real(u)*real(z) + imag(u)*imag(z) }
	partName := map[complex128]string{1: "re", 1i: "im"}
	for k, x := range c.inputs {
		if !c.diff[k] {
			continue
		}
		in := fmt.Sprintf("x%d", k)
		f := func() *Failure {
			n := c.space.Size(x)
			type key struct {
				m, j, i int
				uo, ui  complex128
			}
			fdJ := map[key]float64{}
			for i := range n {
				for _, ui := range parts(c.cplx[k]) {
					b, err := c.basis(x, i, ui)
					if err != nil {
						return &Failure{Input: c.label(k), Detail: "building a basis direction failed", Err: err}
					}
					col, err := c.fdJVP(c.only(k, b))
					if err != nil {
						return &Failure{Input: c.label(k), Detail: "finite difference failed", Err: err}
					}
					for m, on := range c.sel.on {
						if !on {
							continue
						}
						e, _ := elements(c.space, col[m])
						for j := range e {
							for _, uo := range parts(c.cplxY[m]) {
								fdJ[key{m, j, i, uo, ui}] = coord(uo, e[j])
							}
						}
					}
				}
			}
			scale, worst := 0.0, -1.0
			var wk key
			var got, want float64
			for m, on := range c.sel.on {
				if !on {
					continue
				}
				for j := range c.space.Size(c.ys[m]) {
					for _, uo := range parts(c.cplxY[m]) {
						ybar := c.zeroOut()
						b, err := c.basis(c.ys[m], j, uo)
						if err != nil {
							return &Failure{Input: c.label(k), Detail: "building a basis cotangent failed", Err: err}
						}
						ybar[m] = b
						xbar, err := c.pullback(ybar)
						if err != nil {
							return &Failure{Input: c.label(k), Detail: "Pullback failed", Err: err}
						}
						e, _ := elements(c.space, xbar[k])
						for i := range n {
							for _, ui := range parts(c.cplx[k]) {
								kk := key{m, j, i, uo, ui}
								g, w := coord(ui, e[i]), fdJ[kk]
								scale = math.Max(scale, math.Max(math.Abs(g), math.Abs(w)))
								d := math.Abs(g - w)
								if math.IsNaN(d) {
									d = math.Inf(1)
								}
								if d > worst {
									worst, wk, got, want = d, kk, g, w
								}
							}
						}
					}
				}
			}
			if worst <= c.tol.atol+c.tol.rtol*scale {
				return nil
			}
			f := &Failure{Input: c.label(k), Got: complex(got, 0), Want: complex(want, 0), HasValues: true,
				Detail: fmt.Sprintf("Jacobian entry d %s(y%d%v)/d %s(x%d%v): pullback row (got) vs finite-difference column (want); tolerance %.3g + %.3g * %.6g",
					partName[wk.uo], wk.m, unravel(wk.j, c.space.Shape(c.ys[wk.m])), partName[wk.ui], k, unravel(wk.i, c.space.Shape(x)), c.tol.atol, c.tol.rtol, scale)}
			if c.multi {
				f.Output = c.outLabel(wk.m)
			}
			return f
		}()
		c.add(CheckJacobian, in, f)
	}
}

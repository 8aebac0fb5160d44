package ruletest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// checkPrimal records the op on a tape and compares the recorded outputs with a
// fresh evaluation. It reports false when the op cannot be applied at all.
func (c *checker[V]) checkPrimal(tape *core.Tape[V]) bool {
	var outs []cr.NodeID
	err := protect(func() error {
		outs = c.sub.record(tape, c.ids)
		return tape.Err()
	})
	if err != nil {
		c.fail(CheckApply, "", "recording the op on a tape failed", err)
		return false
	}
	recorded := make([]V, len(outs))
	for m, id := range outs {
		v, err := tape.Value(id)
		if err != nil {
			c.fail(CheckApply, "", fmt.Sprintf("reading recorded output y%d failed", m), err)
			return false
		}
		recorded[m] = v
	}
	c.ys = recorded
	c.odiff = make([]bool, len(outs))
	c.cplxY = make([]bool, len(outs))
	for m, y := range recorded {
		c.cplxY[m] = isComplex(c.space.DType(y))
		c.odiff[m] = c.sub.outputDifferentiable(m)
	}
	ys, _, err := c.apply(c.inputs)
	if err != nil {
		c.fail(CheckApply, "", "Apply failed", err)
		return false
	}
	all := make([]bool, len(ys))
	for m := range all {
		all[m] = true
	}
	c.add(CheckPrimal, "", c.compareOut(recorded, ys, all, c.tol.exactAtol, c.tol.exactRtol))
	return true
}

// checkInterfaces holds the rule to its registry entry's Forward and SecondOrder
// flags, in both directions.
func (c *checker[V]) checkInterfaces(r anyRule[V], e *cr.Entry[V]) {
	_, isF := r.forward()
	_, isS := r.second()
	fName, sName := c.sub.interfaceNames()
	var msgs []string
	if isF != e.Forward {
		msgs = append(msgs, fmt.Sprintf("entry says Forward=%v but the rule (%T) implements %s: %v", e.Forward, r.impl(), fName, isF))
	}
	if isS != e.SecondOrder {
		msgs = append(msgs, fmt.Sprintf("entry says SecondOrder=%v but the rule (%T) implements %s: %v", e.SecondOrder, r.impl(), sName, isS))
	}
	if len(msgs) > 0 {
		c.failf(CheckInterfaces, "", "%s", strings.Join(msgs, "; "))
		return
	}
	c.pass(CheckInterfaces, "")
}

// structural checks one pullback result: one contribution per differentiable input,
// shaped and typed like it, naming only the rule's inputs. what names the method.
func (c *checker[V]) structural(what string, nodes []cr.NodeID, vals [][]V) string {
	seen := make([]int, len(c.inputs))
	for i, id := range nodes {
		k := c.index(id)
		if k < 0 {
			return fmt.Sprintf("%s returned a contribution for %v, which is not among Inputs() %v", what, id, c.ids)
		}
		if !c.diff[k] {
			return fmt.Sprintf("%s returned a contribution for x%d, which the op declares non-differentiable", what, k)
		}
		seen[k]++
		for _, v := range vals[i] {
			if !slices.Equal(c.space.Shape(v), c.space.Shape(c.inputs[k])) || c.space.DType(v) != c.space.DType(c.inputs[k]) {
				return fmt.Sprintf("%s returned %s for x%d, which is %s", what, c.space.Describe(v), k, c.space.Describe(c.inputs[k]))
			}
		}
	}
	for k, n := range seen {
		switch {
		case c.diff[k] && n == 0:
			return fmt.Sprintf("%s returned %d contributions and none for differentiable input x%d (want exactly one per differentiable input)", what, len(nodes), k)
		case n > 1:
			return fmt.Sprintf("%s returned %d contributions for x%d (want exactly one)", what, n, k)
		}
	}
	return ""
}

// methodNames names the rule methods in messages.
func (c *checker[V]) methodNames() (pullback, forward, second string) {
	return "Pullback", "Forward", "PullbackWithTangents"
}

// checkStructure checks the shapes of everything a rule returns, method by method.
// A problem in one method does not stop the other methods' checks, nor the numerical
// checks that follow: those then show which method is wrong.
func (c *checker[V]) checkStructure(r anyRule[V]) {
	pbName, fwName, soName := c.methodNames()
	var fails []*Failure
	bad := func(detail string, err error) {
		fails = append(fails, &Failure{Detail: detail, Err: err})
	}
	var ins []cr.NodeID
	if err := protect(func() error { ins = r.inputs(); return nil }); err != nil {
		bad("Inputs failed", err)
	} else if !slices.Equal(ins, c.ids) {
		bad(fmt.Sprintf("Inputs() returns %v, want the %d NodeIDs passed to Apply %v", ins, len(c.ids), c.ids), nil)
	}
	ybar := c.unitOut()
	var xbar []V
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(c.cloneOut(ybar), c.sel.has(), nil)
	})
	if err != nil {
		bad(pbName+" failed", err)
	} else {
		nodes, vals := make([]cr.NodeID, len(cs)), make([][]V, len(cs))
		for i, ct := range cs {
			nodes[i], vals[i] = ct.Node, []V{ct.Value}
		}
		if msg := c.structural(pbName, nodes, vals); msg != "" {
			bad(msg, nil)
		} else if xbar, err = c.collect(cs); err != nil {
			bad("summing the contributions failed", err)
		}
	}
	dirs, present := c.joint()
	if fw, ok := r.forward(); ok {
		ydot, has := make([]V, len(c.ys)), make([]bool, len(c.ys))
		if err := protect(func() error { return fw(c.tangentOf(dirs, present), ydot, has) }); err != nil {
			bad(fwName+" failed", err)
		} else {
			for m, on := range c.sel.on {
				if on && has[m] && (!slices.Equal(c.space.Shape(ydot[m]), c.space.Shape(c.ys[m])) || c.space.DType(ydot[m]) != c.space.DType(c.ys[m])) {
					f := &Failure{Detail: fmt.Sprintf("%s returned %s for output y%d, which is %s", fwName, c.space.Describe(ydot[m]), m, c.space.Describe(c.ys[m]))}
					if c.multi {
						f.Output = c.outLabel(m)
					}
					fails = append(fails, f)
					break
				}
			}
		}
	}
	if sr, ok := r.second(); ok {
		ct := c.dualOut(c.cloneOut(ybar), c.unitOut())
		dcs, err := protected(func() ([]cr.DualContribution[V], error) {
			return sr(ct, c.sel.has(), c.tangentOf(dirs, present), nil)
		})
		if err != nil {
			bad(soName+" failed", err)
		} else {
			nodes, vals := make([]cr.NodeID, len(dcs)), make([][]V, len(dcs))
			for i, d := range dcs {
				nodes[i], vals[i] = d.Node, []V{d.Cotangent.Value}
				if d.Cotangent.HasTangent {
					vals[i] = append(vals[i], d.Cotangent.Tangent)
				}
			}
			if msg := c.structural(soName, nodes, vals); msg != "" {
				bad(msg, nil)
			} else if xbar != nil {
				xbar2, _, err := c.collectDual(dcs)
				if err != nil {
					bad("summing the contributions failed", err)
				}
				for k := range c.inputs {
					if err != nil {
						break
					}
					if f := c.compareVec(xbar2[k], xbar[k], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
						f.Input = c.label(k)
						f.Detail = fmt.Sprintf("%s cotangent (got) differs from %s (want): %s", soName, pbName, f.Detail)
						fails = append(fails, f)
						break
					}
				}
			}
		}
	}
	if len(fails) == 0 {
		c.pass(CheckStructure, "")
		return
	}
	f := fails[0]
	for _, g := range fails[1:] {
		f.Detail += "; also: " + g.Detail
		if g.Err != nil {
			f.Detail += fmt.Sprintf(" (%v)", g.Err)
		}
	}
	c.add(CheckStructure, "", f)
}

// snapshot is a deep copy of a value together with the value itself, to detect
// later changes to the original.
type snapshot[V any] struct {
	what      string
	orig, cpy V
}

// equalExact reports whether a and b hold the same elements (NaNs match NaNs).
func (c *checker[V]) equalExact(a, b V) bool {
	ea, okA := elements(c.space, a)
	eb, okB := elements(c.space, b)
	if okA && okB {
		return slices.EqualFunc(ea, eb, func(x, y complex128) bool {
			return x == y || (isNaN(x) && isNaN(y))
		})
	}
	d, err := c.space.Add(a, c.space.Scale(b, -1))
	return err == nil && c.norm(d) == 0
}

// checkMutation calls every method of one rule on the real inputs, cotangents and
// tangents (not on copies) and checks that none of them, nor an earlier result,
// changed.
func (c *checker[V]) checkMutation() {
	pbName, fwName, soName := c.methodNames()
	var snaps []snapshot[V]
	keep := func(what string, v V) V {
		snaps = append(snaps, snapshot[V]{what: what, orig: v, cpy: c.space.Clone(v)})
		return v
	}
	keepOut := func(what string, v []V) []V {
		for m, on := range c.sel.on {
			if on {
				keep(fmt.Sprintf("%s of y%d", what, m), v[m])
			}
		}
		return v
	}
	xs := make([]V, len(c.inputs))
	for k, x := range c.inputs {
		xs[k] = keep(fmt.Sprintf("input x%d", k), c.space.Clone(x))
	}
	r, err := protected(func() (anyRule[V], error) {
		_, r, e := c.sub.apply(slices.Clone(c.ids), xs)
		return r, e
	})
	if err != nil {
		c.fail(CheckMutation, "", "Apply failed", err)
		return
	}
	step := ""
	run := func(name string, f func() error) error {
		step = name
		return protect(f)
	}
	var hasSlices [][]bool
	has := func() []bool {
		h := c.sel.has()
		hasSlices = append(hasSlices, h)
		return h
	}
	err = func() error {
		ybar := keepOut("cotangent", c.unitOut())
		var first []cr.Contribution[V]
		if err := run(pbName, func() error {
			var e error
			first, e = r.pullback(ybar, has(), nil)
			return e
		}); err != nil {
			return err
		}
		for _, ct := range first {
			keep("the cotangent an earlier "+pbName+" returned", ct.Value)
		}
		if err := run("a second "+pbName, func() error {
			_, e := r.pullback(keepOut("second cotangent", c.unitOut()), has(), nil)
			return e
		}); err != nil {
			return err
		}
		dirs, present := c.joint()
		for k := range dirs {
			if present[k] {
				keep(fmt.Sprintf("tangent of x%d", k), dirs[k])
			}
		}
		tan := func(id cr.NodeID) (V, bool) {
			var zero V
			k := c.index(id)
			if k < 0 || !present[k] {
				return zero, false
			}
			return dirs[k], true
		}
		if fw, ok := r.forward(); ok {
			if err := run(fwName, func() error {
				return fw(tan, make([]V, len(c.ys)), make([]bool, len(c.ys)))
			}); err != nil {
				return err
			}
		}
		if sr, ok := r.second(); ok {
			ct := c.dualOut(keepOut("cotangent of "+soName, c.unitOut()), keepOut("cotangent tangent", c.unitOut()))
			if err := run(soName, func() error {
				_, e := sr(ct, has(), tan, nil)
				return e
			}); err != nil {
				return err
			}
		}
		step = "the calls above"
		return nil
	}()
	if err != nil {
		c.fail(CheckMutation, "", step+" failed", err)
		return
	}
	for _, s := range snaps {
		if !c.equalExact(s.orig, s.cpy) {
			f := c.compareVec(s.orig, s.cpy, 0, 0, 0)
			if f == nil {
				f = &Failure{}
			}
			f.Detail = fmt.Sprintf("%s was modified by Apply, %s, %s or %s (rules must not mutate their arguments or earlier results)", s.what, pbName, fwName, soName)
			c.add(CheckMutation, "", f)
			return
		}
	}
	for _, h := range hasSlices {
		if !slices.Equal(h, c.sel.on) {
			c.failf(CheckMutation, "", "the has slice passed to %s or %s was modified: %v, passed as %v", pbName, soName, h, c.sel.on)
			return
		}
	}
	c.pass(CheckMutation, "")
}

// checkRepeat calls each method of one rule with one argument, then another, then
// the first again, and requires the same answer both times.
func (c *checker[V]) checkRepeat() {
	pbName, fwName, soName := c.methodNames()
	r, err := c.fresh()
	if err != nil {
		c.fail(CheckRepeat, "", "Apply failed", err)
		return
	}
	y1, y2 := c.unitOut(), c.unitOut()
	first, again, err := callABA(func(y []V) ([]V, error) { return c.pullbackOf(r, y) }, y1, y2)
	if f := c.resultFailure(pbName, again, first, err, pbName+" gave a different cotangent on a later call with the same ybar: "); f != nil {
		c.add(CheckRepeat, "", f)
		return
	}
	dirs, present := c.joint()
	other, _ := c.joint()
	if _, ok := r.forward(); ok {
		a, b, err := callABA(func(d []V) ([]V, error) { return c.forwardOf(r, d, present) }, dirs, other)
		if err != nil {
			c.fail(CheckRepeat, "", fwName+" failed", err)
			return
		}
		if f := c.compareOut(b, a, c.sel.on, c.tol.exactAtol, c.tol.exactRtol); f != nil {
			f.Detail = fwName + " gave a different tangent on a later call with the same tangents: " + f.Detail
			c.add(CheckRepeat, "", f)
			return
		}
	}
	if _, ok := r.second(); ok {
		type args struct {
			ct   []cr.Dual[V]
			dirs []V
		}
		second := func(x args) ([]V, error) {
			_, xbardot, err := c.secondOf(r, x.ct, x.dirs, present)
			return xbardot, err
		}
		a, b, err := callABA(second, args{c.dualOut(y1, y2), dirs}, args{c.dualOut(y2, nil), other})
		if f := c.resultFailure(soName, b, a, err, soName+" gave a different tangent on a later call with the same arguments: "); f != nil {
			c.add(CheckRepeat, "", f)
			return
		}
	}
	c.pass(CheckRepeat, "")
}

// callABA calls call(a), call(b), then call(a) again, and returns the results of the
// two calls with a, or the first error.
func callABA[A, T any](call func(A) (T, error), a, b A) (first, again T, err error) {
	if first, err = call(a); err != nil {
		return first, again, err
	}
	if _, err = call(b); err != nil {
		return first, again, err
	}
	again, err = call(a)
	return first, again, err
}

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

// renormalize scales the present directions to unit total norm.
func (c *checker[V]) renormalize(dirs []V, present []bool) []V {
	total := 0.0
	for k, v := range dirs {
		if present[k] {
			n := c.norm(v)
			total += n * n
		}
	}
	if total == 0 {
		return dirs
	}
	out := slices.Clone(dirs)
	for k := range out {
		if present[k] {
			out[k] = c.space.Scale(out[k], 1/math.Sqrt(total))
		}
	}
	return out
}

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

// isNaN reports whether either part of z is a NaN.
func isNaN(z complex128) bool { return math.IsNaN(real(z)) || math.IsNaN(imag(z)) }

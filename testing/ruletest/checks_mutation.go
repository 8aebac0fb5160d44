package ruletest

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

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

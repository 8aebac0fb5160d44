package ruletest

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// apply evaluates the op at x (private clones), recovering panics.
func (c *checker[V]) apply(x []V) (ys []V, rule anyRule[V], err error) {
	xs := make([]V, len(x))
	for k, v := range x {
		xs[k] = c.space.Clone(v)
	}
	err = protect(func() error {
		var e error
		ys, rule, e = c.sub.apply(slices.Clone(c.ids), xs)
		return e
	})
	return ys, rule, err
}

// fresh returns a new rule at the checked point. The checks other than repeat and
// mutation each use a fresh rule, so that a rule with state that leaks between
// calls fails the repeat check and nothing else.
func (c *checker[V]) fresh() (anyRule[V], error) {
	_, r, err := c.apply(c.inputs)
	return r, err
}

// index maps a NodeID to its input position, or -1.
func (c *checker[V]) index(id cr.NodeID) int {
	return slices.Index(c.ids, id)
}

// collect sums contributions into per-input cotangents (zero where absent).
func (c *checker[V]) collect(cs []cr.Contribution[V]) ([]V, error) {
	out := make([]V, len(c.inputs))
	for k, x := range c.inputs {
		out[k] = c.space.Zero(x)
	}
	for _, ct := range cs {
		k := c.index(ct.Node)
		if k < 0 {
			return nil, cr.Errorf(cr.ErrMissingNode, "contribution for %v, which is not an input", ct.Node)
		}
		s, err := c.space.Add(out[k], ct.Value)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// ---- rule calls on private copies ----

// pullback runs a fresh rule's pullback on a private copy of ybar.
func (c *checker[V]) pullback(ybar []V) ([]V, error) {
	r, err := c.fresh()
	if err != nil {
		return nil, err
	}
	return c.pullbackOf(r, ybar)
}

func (c *checker[V]) pullbackOf(r anyRule[V], ybar []V) ([]V, error) {
	cs, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(c.cloneOut(ybar), c.sel.has(), nil)
	})
	if err != nil {
		return nil, err
	}
	return c.collect(cs)
}

// tangentOf serves the tangents dirs (nil entries absent) by NodeID.
func (c *checker[V]) tangentOf(dirs []V, present []bool) cr.TangentOf[V] {
	return func(id cr.NodeID) (V, bool) {
		var zero V
		k := c.index(id)
		if k < 0 || !present[k] {
			return zero, false
		}
		return c.space.Clone(dirs[k]), true
	}
}

// forward runs a fresh rule's forward method; the selected outputs' tangents come
// back, absent ones as zeros.
func (c *checker[V]) forward(dirs []V, present []bool) ([]V, error) {
	r, err := c.fresh()
	if err != nil {
		return nil, err
	}
	return c.forwardOf(r, dirs, present)
}

func (c *checker[V]) forwardOf(r anyRule[V], dirs []V, present []bool) ([]V, error) {
	fw, ok := r.forward()
	if !ok {
		return nil, cr.Errorf(cr.ErrNoRule, "fresh rule has no forward method")
	}
	ydot, has := make([]V, len(c.ys)), make([]bool, len(c.ys))
	if err := protect(func() error { return fw(c.tangentOf(dirs, present), ydot, has) }); err != nil {
		return nil, err
	}
	out := make([]V, len(c.ys))
	for m, on := range c.sel.on {
		switch {
		case !on:
		case has[m]:
			out[m] = ydot[m]
		default:
			out[m] = c.space.Zero(c.ys[m])
		}
	}
	return out, nil
}

// second runs a fresh rule's second-order method and returns per-input cotangents
// and their tangents (absent tangents as zeros).
func (c *checker[V]) second(ct []cr.Dual[V], dirs []V, present []bool) (xbar, xbardot []V, err error) {
	r, err := c.fresh()
	if err != nil {
		return nil, nil, err
	}
	return c.secondOf(r, ct, dirs, present)
}

func (c *checker[V]) secondOf(r anyRule[V], ct []cr.Dual[V], dirs []V, present []bool) (xbar, xbardot []V, err error) {
	sr, ok := r.second()
	if !ok {
		return nil, nil, cr.Errorf(cr.ErrHVPNotSupported, "rule has no second-order method")
	}
	cp := make([]cr.Dual[V], len(ct))
	for m, d := range ct {
		if !c.sel.on[m] {
			continue
		}
		cp[m] = cr.Dual[V]{Value: c.space.Clone(d.Value), HasTangent: d.HasTangent}
		if d.HasTangent {
			cp[m].Tangent = c.space.Clone(d.Tangent)
		}
	}
	dcs, err := protected(func() ([]cr.DualContribution[V], error) {
		return sr(cp, c.sel.has(), c.tangentOf(dirs, present), nil)
	})
	if err != nil {
		return nil, nil, err
	}
	return c.collectDual(dcs)
}

// collectDual sums dual contributions into per-input cotangents and tangents.
func (c *checker[V]) collectDual(dcs []cr.DualContribution[V]) (xbar, xbardot []V, err error) {
	vals := make([]cr.Contribution[V], 0, len(dcs))
	tans := make([]cr.Contribution[V], 0, len(dcs))
	for _, d := range dcs {
		vals = append(vals, cr.Contribution[V]{Node: d.Node, Value: d.Cotangent.Value})
		if d.Cotangent.HasTangent {
			tans = append(tans, cr.Contribution[V]{Node: d.Node, Value: d.Cotangent.Tangent})
		}
	}
	if xbar, err = c.collect(vals); err != nil {
		return nil, nil, err
	}
	if xbardot, err = c.collect(tans); err != nil {
		return nil, nil, err
	}
	return xbar, xbardot, nil
}

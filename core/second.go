package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// BackwardWithTangents runs the second-order sweep from a scalar output with seed 1
// and seed tangent 0, given the tangents of a forward sweep on this tape. It returns
// the cotangents (the gradient, as Backward would) and the cotangents' tangents: for
// a scalar output f and leaf tangents v, the latter hold the Hessian-vector product
// H v at each leaf. This is forward-over-reverse differentiation.
func (t *Tape[V]) BackwardWithTangents(out cr.NodeID, tan *Tangents[V], opts ...BackwardOption) (grad, gradTangent *Gradients[V], err error) {
	seed, err := t.scalarSeed(out)
	if err != nil {
		return nil, nil, err
	}
	return t.BackwardWithTangentsSeed(out, cr.Dual[V]{Value: seed}, tan, opts...)
}

// BackwardWithTangentsSeed runs the second-order sweep from out with the seed pair
// (ybar, ybardot). Each node's rule receives its cotangent pair and returns, through
// PullbackWithTangents, the pairs of its inputs:
//
//	xbar    = J(x)^* ybar
//	xbardot = d/de [ J(x + e xdot)^* (ybar + e ybardot) ] at e = 0
//
// where xdot are the forward tangents. Hooks run as in BackwardSeed, in their
// second-order form (see AddHook and AddDualHook). A node that no tangent reaches (no input
// tangent and no cotangent tangent) runs its plain Pullback, which is then exact. A
// node that a tangent reaches but whose rule lacks PullbackWithTangents is an error
// wrapping ErrHVPNotSupported that names the op.
func (t *Tape[V]) BackwardWithTangentsSeed(out cr.NodeID, seed cr.Dual[V], tan *Tangents[V], opts ...BackwardOption) (grad, gradTangent *Gradients[V], err error) {
	cfg := configure(opts)
	if !t.enter() {
		return nil, nil, errConcurrentUse
	}
	defer t.leave()
	if err := t.Err(); err != nil {
		return nil, nil, err
	}
	o, err := t.index(out)
	if err != nil {
		return nil, nil, err
	}
	if tan == nil || tan.tape != t {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "tangents are from another tape")
	}
	if len(tan.vals) <= t.groupEnd(o) {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "tangents were computed before node %v was recorded", out)
	}
	if err := t.checkSeed(o, out, seed.Value, "second-order", "seed"); err != nil {
		return nil, nil, err
	}
	if seed.HasTangent {
		if err := t.checkSeed(o, out, seed.Tangent, "second-order", "seed tangent"); err != nil {
			return nil, nil, err
		}
	}
	seeds := [1]seedAt[V]{{o, seed.Value}}
	var dseeds []seedAt[V]
	if seed.HasTangent {
		dseeds = []seedAt[V]{{o, seed.Tangent}}
	}
	acc, dacc, err := t.sweep(seeds[:], dseeds, t.groupEnd(o), cfg.allNodes, true, false, tan, nil)
	if err == nil && t.misused() {
		err = errConcurrentUse // a hook or a rule re-entered the tape during the sweep
	}
	if err != nil {
		return nil, nil, err
	}
	grad, gradTangent = &Gradients[V]{tape: t, acc: acc}, &Gradients[V]{tape: t, acc: dacc}
	if cfg.release {
		t.free()
	}
	return grad, gradTangent, nil
}

// accumulate validates one contribution of node i (whose op's inputs are ins) and
// adds it into a.
func (t *Tape[V]) accumulate(i int, ins []cr.NodeID, node cr.NodeID, v V, a *accum[V]) error {
	j, err := t.checkContribution(i, ins, node, v)
	if err != nil {
		return err
	}
	if t.at(j).flags&flagRequires == 0 {
		return nil
	}
	if err := a.add(j, v); err != nil {
		return t.opErr(i, "pullback", err)
	}
	return nil
}

// checkDual is the anomaly check of one second-order contribution of node i.
func (t *Tape[V]) checkDual(i int, c cr.DualContribution[V]) error {
	if err := t.checkSweep(i, "second-order", "cotangent of input "+c.Node.String(), c.Cotangent.Value); err != nil {
		return err
	}
	if c.Cotangent.HasTangent {
		return t.checkSweep(i, "second-order", "cotangent tangent of input "+c.Node.String(), c.Cotangent.Tangent)
	}
	return nil
}

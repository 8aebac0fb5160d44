package core

import (
	"errors"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// GradGraph runs a reverse sweep from a scalar output with seed 1 that records
// itself on the tape (PyTorch's backward with create_graph=True): it returns, for
// each node of wrt, a node on this tape holding d out / d wrt[k], computed by ops, so
// that the gradient can be used in further computation and differentiated again, in
// either direction (Backward, ForwardTangents, BackwardWithTangents, or GradGraph
// once more). A node out does not depend on gets a zero constant.
//
// Each op the sweep passes records its pullback with ops (chainrules.PullbackRecorder);
// an op whose rule cannot (it lacks the method, or its RecordPullback returns
// chainrules.ErrOrderNotSupported) is an error wrapping chainrules.ErrOrderNotSupported (an
// *chainrules.OrderError naming the op and the order of derivative asked for: 2 for
// an op recorded by the program, 3 for an op that a recorded sweep recorded, and so
// on). Cotangents that reach a node from several uses are added with
// chainrules.AddOp. Only the ops between wrt and out are visited. The sweep records
// ops one by one, as a program would (the tape is not held busy in between), and it
// does not run hooks: a node with hooks is an error.
//
// An output of more than one element is an error wrapping ErrNonScalarLoss
// (GradGraphSeed takes a seed node).
func (t *Tape[V]) GradGraph(out cr.NodeID, wrt ...cr.NodeID) ([]cr.NodeID, error) {
	seed, err := t.scalarSeed(out)
	if err != nil {
		return nil, err
	}
	s := t.Constant(seed)
	if err := t.Err(); err != nil {
		return nil, err
	}
	return t.GradGraphSeed(out, s, wrt...)
}

// GradGraphSeed is GradGraph from the output cotangent seed, a node shaped like out:
// it records the vector-Jacobian product J^* seed for each node of wrt. The seed may
// itself depend on leaves (the cotangent of a double-backward JVP).
func (t *Tape[V]) GradGraphSeed(out, seed cr.NodeID, wrt ...cr.NodeID) ([]cr.NodeID, error) {
	return t.gradGraph([]cr.NodeID{out}, []cr.NodeID{seed}, wrt, false)
}

// GradGraphSeeds is GradGraphSeed from several outputs at once: it records, for
// each node of wrt, sum_k J_k^* seeds[k], where J_k is the Jacobian of outs[k] (one
// seed node per output, shaped like it).
func (t *Tape[V]) GradGraphSeeds(outs, seeds []cr.NodeID, wrt ...cr.NodeID) ([]cr.NodeID, error) {
	if len(seeds) != len(outs) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "recorded backward: %d seeds for %d outputs", len(seeds), len(outs))
	}
	if len(outs) == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "recorded backward: no outputs")
	}
	return t.gradGraph(outs, seeds, wrt, false)
}

// gradGraph records the sweep from the outputs outs with the seed nodes seeds to
// the nodes wrt. With stop set, the nodes of wrt are independent variables: the
// sweep does not go on through them (a composite's inputs, which the outer sweep
// differentiates further), so each gets its partial derivative.
func (t *Tape[V]) gradGraph(outs, seeds, wrt []cr.NodeID, stop bool) ([]cr.NodeID, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	top := -1
	for k, o := range outs {
		i, err := t.index(o)
		if err != nil {
			return nil, fmt.Errorf("recorded backward: output %d: %w", k, err)
		}
		j, err := t.index(seeds[k])
		if err != nil {
			return nil, fmt.Errorf("recorded backward: seed %d: %w", k, err)
		}
		if !t.sameLayout(t.at(i).value, t.at(j).value) {
			return nil, &cr.OpError{Op: t.nameOf(i), Node: o, Phase: "recorded backward", Err: cr.Errorf(cr.ErrShapeMismatch,
				"seed is %s, the output is %s", t.space.Describe(t.at(j).value), t.space.Describe(t.at(i).value))}
		}
		top = max(top, t.groupEnd(i))
	}
	want := make([]int, len(wrt))
	isWant, done := make(map[int]bool, len(wrt)), make(map[int]cr.NodeID)
	first := top + 1 // no node before the first of wrt depends on one
	for k, w := range wrt {
		i, err := t.index(w)
		if err != nil {
			return nil, fmt.Errorf("recorded backward: wrt %d: %w", k, err)
		}
		if t.at(i).flags&flagRequires == 0 {
			// Ops applied to it may have skipped its cotangent (chainrules.MaskedOp):
			// a zero here would be silently wrong.
			return nil, &cr.OpError{Op: t.nameOf(i), Node: w, Phase: "recorded backward", Err: cr.Errorf(cr.ErrInvalidArgument,
				"wrt %d does not require gradients (no leaf influences it): record it with Leaf to differentiate with respect to it", k)}
		}
		want[k] = i
		isWant[i] = true
		first = min(first, i)
	}
	// The sweep covers the nodes base..top: from the first node of wrt (or of the
	// op whose output it is), since no earlier node depends on wrt, to the last
	// output. Its slices are that long, not as long as the tape, so that a loop
	// that takes a gradient at every step costs the steps' nodes, not the tape's.
	base := first
	if base <= top {
		last := t.groupEnd(base)
		base = last - int(t.at(last).grp)
	}
	span := max(top+1-base, 0)
	// need[i-base]: node i depends on a node of wrt, so its cotangent flows to one.
	need := make([]bool, span)
	needs := func(j int) bool { return j >= base && j <= top && need[j-base] }
	for _, i := range want {
		if i <= top {
			need[i-base] = true
		}
	}
	for i := first; i <= top; i++ {
		if need[i-base] {
			continue
		}
		if r := t.ruleOf(i); r != nil {
			for _, in := range r.Inputs() {
				if needs(in.Index()) {
					need[i-base] = true
					break
				}
			}
		}
	}
	// feeds reports whether some input of rule needs a cotangent.
	feeds := func(rule cr.Rule[V]) bool {
		for _, in := range rule.Inputs() {
			if needs(in.Index()) {
				return true
			}
		}
		return false
	}
	acc := make([]cr.NodeID, span) // acc[j-base]: node j's cotangent so far
	add := cr.AddOp(t.space)
	put := func(j int, v cr.NodeID) {
		if j < base || j > top {
			return // a node no node of wrt reaches
		}
		if acc[j-base].Valid() {
			v = t.Apply(add, acc[j-base], v)
		}
		acc[j-base] = v
	}
	for k, o := range outs {
		put(o.Index(), seeds[k])
	}
	level := t.level
	defer func() { t.level = level }()
	for i := top; i >= first; i-- {
		if err := t.Err(); err != nil {
			return nil, err
		}
		nd := t.at(i)
		if nd.flags&flagSibling != 0 || !need[i-base] || nd.rule == nil || (stop && isWant[i]) {
			continue
		}
		k := int(nd.grp) + 1
		lo := i - k + 1
		present := false
		for j := lo; j <= i; j++ {
			present = present || acc[j-base].Valid()
			if acc[j-base].Valid() && t.at(j).flags&flagHook != 0 {
				return nil, t.opErr(j, "recorded backward", cr.Errorf(cr.ErrInvalidArgument,
					"the node has hooks, which a recorded backward sweep does not run"))
			}
		}
		if !present || !feeds(nd.rule) {
			// No cotangent, or none of the op's inputs needs one: a node of wrt
			// whose op lies before every other node of wrt is not between wrt and
			// out, and its pullback is not recorded (its cotangent is complete).
			continue
		}
		rule, name, id := nd.rule, t.nameOf(i), cr.NewNodeID(t.tag, i)
		pr, ok := rule.(cr.PullbackRecorder[V])
		if !ok {
			return nil, &cr.OpError{Op: name, Node: id, Phase: "recorded backward",
				Err: &cr.OrderError{Op: name, Order: int(nd.level) + 2}}
		}
		ins := append([]cr.NodeID(nil), rule.Inputs()...)
		ys := make([]cr.NodeID, k)
		for j := range ys {
			ys[j] = cr.NewNodeID(t.tag, lo+j)
		}
		// The ops recorded for this node are one derivative deeper than it.
		lvl := nd.level
		t.level = min(lvl, 254) + 1
		xbar, err := pr.RecordPullback(t, ins, ys, append([]cr.NodeID(nil), acc[lo-base:i+1-base]...))
		t.level = level
		if err == nil {
			err = t.Err()
		}
		if err != nil {
			if declined(err) {
				// Only the sweep knows how deep the node sits.
				err = &cr.OrderError{Op: name, Order: int(lvl) + 2}
			}
			return nil, &cr.OpError{Op: name, Node: id, Phase: "recorded backward", Err: err}
		}
		if len(xbar) != len(ins) {
			return nil, &cr.OpError{Op: name, Node: id, Phase: "recorded backward", Err: cr.Errorf(cr.ErrInvalidArgument,
				"recorded pullback returned %d cotangents for %d inputs", len(xbar), len(ins))}
		}
		for m, c := range xbar {
			if !c.Valid() {
				continue
			}
			j := ins[m].Index()
			ci, err := t.index(c)
			if err != nil {
				return nil, &cr.OpError{Op: name, Node: id, Phase: "recorded backward", Err: fmt.Errorf("cotangent of input %d: %w", m, err)}
			}
			if !t.sameLayout(t.at(ci).value, t.at(j).value) {
				return nil, &cr.OpError{Op: name, Node: id, Phase: "recorded backward", Err: cr.Errorf(cr.ErrShapeMismatch,
					"cotangent of input %d is %s, the input is %s", m, t.space.Describe(t.at(ci).value), t.space.Describe(t.at(j).value))}
			}
			if needs(j) {
				put(j, c)
			}
		}
		for j := lo; j <= i; j++ {
			if isWant[j] {
				done[j] = acc[j-base] // an op node of wrt: its cotangent is complete
			}
			acc[j-base] = 0
		}
	}
	res := make([]cr.NodeID, len(wrt))
	for k, i := range want {
		switch {
		case done[i].Valid():
			res[k] = done[i]
		case i <= top && acc[i-base].Valid():
			res[k] = acc[i-base]
		default:
			res[k] = t.Constant(t.space.Zero(t.at(i).value))
		}
	}
	if err := t.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// declined reports whether err is a rule's own ErrOrderNotSupported, which a
// recorded sweep turns into an *chainrules.OrderError naming the op and the order:
// an error that already is one (from a composite's nested sweep) stays as it is.
func declined(err error) bool {
	var oe *cr.OrderError
	return errors.Is(err, cr.ErrOrderNotSupported) && !errors.As(err, &oe)
}

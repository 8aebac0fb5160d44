package chainrules

import "slices"

// LinearRule returns the rule of an op that is linear in its differentiable inputs,
//
//	y = sum_k L_k x_k,
//
// where each L_k is a fixed linear map (it may depend on the op's parameters and on
// inputs that are not differentiated, such as an index tensor or a recorded argmax,
// but not on the x_k). The Jacobian of such an op is J_k = L_k everywhere, so all
// three rules follow from the maps and their adjoints:
//
//	ydot      = sum_k L_k xdot_k          (Forward)
//	xbar_k    = L_k^* ybar                (Pullback)
//	xbardot_k = L_k^* ybardot             (PullbackWithTangents)
//
// The second-order term sum_j (d/dx_j L_k^* ybar) xdot_j of SecondOrderRule vanishes
// because L_k^* does not depend on x, so xbardot_k is absent exactly when ybardot is.
//
// in holds the NodeIDs of all the op's inputs, in order; LinearRule copies it, so an
// Op.Apply may pass its own in slice. need is nil (every input is differentiated) or
// holds one flag per input: need[k] false leaves input k out of the pullbacks and
// never reads its tangent. That is the case for an input the op is not
// differentiable in (a PartialOp's index or mask input) and for an input whose
// cotangent a MaskedOp was told nobody needs. need is copied too.
//
// apply computes sum_k L_k xdot_k. It gets one tangent and one flag per input:
// ok[k] false means that xdot_k is zero (its tangent is absent, or need[k] is
// false), and xdot[k] then holds the zero V. A tangent that is present is passed as
// it is, even if it is the zero V (a nil *tensor.Dense), for apply to reject. apply
// is called only when some ok[k] is true: when none is, Forward leaves the tangent
// absent without calling apply or allocating.
//
// adjoint(k, ybar) computes L_k^* ybar, the adjoint under the real inner product
// Re<a, b>, for an input k whose need is true.
//
// Neither map may retain or modify the values it is given, nor return a value it
// will modify later; either may return a view of its argument, since the engine
// never writes into a value it did not allocate. Their errors are returned
// unchanged, so they should wrap a sentinel of this package (the engine adds the op
// name, the node and the phase).
//
// The rule (of one output) implements Rule, ForwardRule, SecondOrderRule and
// PullbackRecorder: its recorded pullback applies the adjoint map L_k^* as an op
// ("linear_adjoint") whose own rules are those of a linear op with the map L_k^*
// and its adjoint L_k, recorded in turn as the op "linear_map", and so on, so that a
// linear op is differentiable to every order. A need slice
// whose length is not len(in) makes every method return an error wrapping
// ErrInvalidArgument; a nil apply or adjoint makes the methods that need it return
// one wrapping ErrNoRule.
func LinearRule[V any](in []NodeID, need []bool, apply func(xdot []V, ok []bool) (V, error), adjoint func(k int, ybar V) (V, error)) Rule[V] {
	r := &linearRule[V]{in: slices.Clone(in), apply: apply, adjoint: adjoint}
	if need != nil {
		if len(need) != len(in) {
			r.err = Errorf(ErrInvalidArgument, "linear rule: %d need flags for %d inputs", len(need), len(in))
		}
		r.need = slices.Clone(need)
	}
	return r
}

// UnaryLinearRule returns the rule of an op y = L x of one input: LinearRule with
// apply(xdot) = L xdot and adjoint(ybar) = L^* ybar, without the slice and the input
// number. Forward calls apply only when the tangent of x is present. The
// rule allocates nothing beyond itself and what apply and adjoint allocate.
func UnaryLinearRule[V any](in NodeID, apply, adjoint func(V) (V, error)) Rule[V] {
	r := &linearRule[V]{apply1: apply, adjoint1: adjoint}
	r.one[0] = in
	r.in = r.one[:]
	return r
}

// linearRule is the rule LinearRule and UnaryLinearRule return. Exactly one of the
// pairs (apply, adjoint) and (apply1, adjoint1) is in use: the unary form avoids a
// slice per tangent.
type linearRule[V any] struct {
	in   []NodeID
	one  [1]NodeID // storage of in for the unary form
	need []bool    // nil: every input
	err  error     // a construction error, returned by every method

	apply    func(xdot []V, ok []bool) (V, error)
	adjoint  func(k int, ybar V) (V, error)
	apply1   func(V) (V, error)
	adjoint1 func(V) (V, error)

	// transpose, set on the rule of a linearMapOp, is the op that records the
	// adjoint of its map (the other map of the same base rule).
	transpose *linearMapOp[V]
}

var (
	_ ForwardRule[float64]      = (*linearRule[float64])(nil)
	_ SecondOrderRule[float64]  = (*linearRule[float64])(nil)
	_ PullbackRecorder[float64] = (*linearRule[float64])(nil)
)

// fwd returns L_k v.
func (r *linearRule[V]) fwd(k int, v V) (V, error) {
	if r.apply1 != nil {
		return r.apply1(v)
	}
	var zero V
	if r.apply == nil {
		return zero, Errorf(ErrNoRule, "linear rule: no forward map")
	}
	ts, oks := make([]V, len(r.in)), make([]bool, len(r.in))
	ts[k], oks[k] = v, true
	return r.apply(ts, oks)
}

// RecordPullback records xbar_k = L_k^* ybar for every input k that needs a
// cotangent, as the op linear_adjoint applied to ybar.
func (r *linearRule[V]) RecordPullback(rec Recorder[V], _, _, ybar []NodeID) ([]NodeID, error) {
	if r.err != nil {
		return nil, r.err
	}
	out := make([]NodeID, len(r.in))
	if !ybar[0].Valid() {
		return out, nil
	}
	for k := range r.in {
		if !r.needs(k) {
			continue
		}
		op := linearMapOp[V]{base: r, k: k, adjoint: true}
		if r.transpose != nil {
			op = *r.transpose
		}
		out[k] = rec.Apply(op, ybar[0])
	}
	return out, rec.Err()
}

// linearMapOp applies one map of a linear rule to its one input: L_k^* (adjoint)
// or L_k. Its rule is that of the linear op with that map, whose adjoint is the
// other one.
type linearMapOp[V any] struct {
	base    *linearRule[V]
	k       int
	adjoint bool
}

func (o linearMapOp[V]) Name() string {
	if o.adjoint {
		return "linear_adjoint"
	}
	return "linear_map"
}

func (o linearMapOp[V]) NumOutputs() int { return 1 }

// maps returns the op's map and the map of its adjoint.
func (o linearMapOp[V]) maps() (m, mAdj func(V) (V, error)) {
	b, k := o.base, o.k
	fwd := func(v V) (V, error) { return b.fwd(k, v) }
	adj := func(v V) (V, error) { return b.adj(k, v) }
	if o.adjoint {
		return adj, fwd
	}
	return fwd, adj
}

func (o linearMapOp[V]) Apply(in []NodeID, x, y []V) (Rule[V], error) {
	if len(x) != 1 || len(in) != 1 {
		return nil, Errorf(ErrInvalidArgument, "%s: takes 1 input, got %d", o.Name(), len(x))
	}
	m, mAdj := o.maps()
	v, err := m(x[0])
	if err != nil {
		return nil, err
	}
	y[0] = v
	r := &linearRule[V]{apply1: m, adjoint1: mAdj, transpose: &linearMapOp[V]{base: o.base, k: o.k, adjoint: !o.adjoint}}
	r.one[0] = in[0]
	r.in = r.one[:]
	return r, nil
}

// Inputs returns the NodeIDs of the op's inputs.
func (r *linearRule[V]) Inputs() []NodeID { return r.in }

// needs reports whether input k gets a cotangent.
func (r *linearRule[V]) needs(k int) bool { return r.need == nil || r.need[k] }

// adj returns L_k^* g.
func (r *linearRule[V]) adj(k int, g V) (V, error) {
	switch {
	case r.adjoint1 != nil:
		return r.adjoint1(g)
	case r.adjoint != nil:
		return r.adjoint(k, g)
	}
	var zero V
	return zero, Errorf(ErrNoRule, "linear rule: no adjoint map")
}

// Pullback appends xbar_k = L_k^* ybar for every input k that needs a cotangent.
func (r *linearRule[V]) Pullback(ybar []V, _ []bool, dst []Contribution[V]) ([]Contribution[V], error) {
	return appendNeeded(r, dst, func(k int, id NodeID) (Contribution[V], error) {
		xbar, err := r.adj(k, ybar[0])
		return Contribution[V]{Node: id, Value: xbar}, err
	})
}

// appendNeeded appends to dst the contribution c(k, id) of every input k (NodeID id)
// that needs a cotangent, in order. On r's construction error or the first error of c
// it returns that error and dst as it was given.
func appendNeeded[V, C any](r *linearRule[V], dst []C, c func(k int, id NodeID) (C, error)) ([]C, error) {
	if r.err != nil {
		return dst, r.err
	}
	n := len(dst)
	for k, id := range r.in {
		if !r.needs(k) {
			continue
		}
		ck, err := c(k, id)
		if err != nil {
			return dst[:n], err
		}
		dst = append(dst, ck)
	}
	return dst, nil
}

// Forward sets ydot = sum_k L_k xdot_k, or leaves it absent without allocating
// when no input that needs a cotangent has a tangent.
func (r *linearRule[V]) Forward(tangentOf TangentOf[V], ydot []V, has []bool) error {
	if r.err != nil {
		return r.err
	}
	if r.apply1 != nil {
		t, ok := tangentOf(r.in[0])
		if !ok {
			return nil
		}
		y, err := r.apply1(t)
		if err != nil {
			return err
		}
		ydot[0], has[0] = y, true
		return nil
	}
	// Find the first present tangent before allocating anything.
	first := -1
	var t0 V
	for k, id := range r.in {
		if !r.needs(k) {
			continue
		}
		if t, ok := tangentOf(id); ok {
			first, t0 = k, t
			break
		}
	}
	if first < 0 {
		return nil
	}
	if r.apply == nil {
		return Errorf(ErrNoRule, "linear rule: no forward map")
	}
	ts, oks := make([]V, len(r.in)), make([]bool, len(r.in))
	ts[first], oks[first] = t0, true
	for k := first + 1; k < len(r.in); k++ {
		if r.needs(k) {
			ts[k], oks[k] = tangentOf(r.in[k])
		}
	}
	y, err := r.apply(ts, oks)
	if err != nil {
		return err
	}
	ydot[0], has[0] = y, true
	return nil
}

// PullbackWithTangents appends (L_k^* ybar, L_k^* ybardot) for every input k that
// needs a cotangent; the tangent part is absent when ybardot is. The input tangents
// do not enter: L_k^* is constant in x.
func (r *linearRule[V]) PullbackWithTangents(a SecondOrderArgs[V], dst []DualContribution[V]) ([]DualContribution[V], error) {
	ct := a.Cotangents[0]
	return appendNeeded(r, dst, func(k int, id NodeID) (DualContribution[V], error) {
		xbar, err := r.adj(k, ct.Value)
		if err != nil {
			return DualContribution[V]{}, err
		}
		d := Dual[V]{Value: xbar}
		if ct.HasTangent {
			if d.Tangent, err = r.adj(k, ct.Tangent); err != nil {
				return DualContribution[V]{}, err
			}
			d.HasTangent = true
		}
		return DualContribution[V]{Node: id, Cotangent: d}, nil
	})
}

package core

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
)

// LinearMap is the derivative of a function at a point, as a linear map between
// lists of values: Linearize returns the Jacobian-vector product v -> J v, and its
// Transpose the vector-Jacobian product w -> J^* w (the adjoint under the real inner
// product of the Space). Both run the rules recorded once by Linearize, with the
// residuals they captured; the function is not run again.
type LinearMap[V any] struct {
	tape       *Tape[V]
	in, out    []cr.NodeID
	transposed bool
}

// Linearize records y = f(x) once on a new tape for space, with x as leaves, and
// returns the primal outputs y and the linear map
//
//	v -> J v = d/de f(x + e v) at e = 0   (one value per input -> one per output),
//
// JAX's jax.linearize. Applying the map runs the tape's forward sweep
// (ForwardTangents), reusing the values the rules captured at x. Its Transpose is
// JAX's jax.linear_transpose of it: w -> J^* w, the tape's reverse sweep from the
// cotangents w of all outputs at once. f receives the tape and the leaves and
// returns the output nodes; its recording errors are returned.
func Linearize[V any](space cr.Space[V], f func(t *Tape[V], x []cr.NodeID) []cr.NodeID, x ...V) ([]V, *LinearMap[V], error) {
	t := NewTape(space)
	in := make([]cr.NodeID, len(x))
	for k, v := range x {
		in[k] = t.Leaf(v)
	}
	out := f(t, append([]cr.NodeID(nil), in...))
	if err := t.Err(); err != nil {
		return nil, nil, err
	}
	y := make([]V, len(out))
	for k, id := range out {
		i, err := t.index(id)
		if err != nil {
			return nil, nil, err
		}
		y[k] = t.at(i).value
	}
	return y, &LinearMap[V]{tape: t, in: in, out: append([]cr.NodeID(nil), out...)}, nil
}

// Transpose returns the adjoint map: the VJP w -> J^* w if l is the JVP, and the JVP
// if l is a VJP. l.Transpose().Transpose() is l.
func (l *LinearMap[V]) Transpose() *LinearMap[V] {
	return &LinearMap[V]{tape: l.tape, in: l.in, out: l.out, transposed: !l.transposed}
}

// Apply applies the map. The JVP takes one tangent per input of f, shaped like it,
// and returns one tangent per output; the VJP takes one cotangent per output and
// returns one cotangent per input. Zero results are the Space's Zero, in new
// storage; the others may share storage with v or with values the rules captured.
func (l *LinearMap[V]) Apply(v ...V) ([]V, error) {
	t := l.tape
	if err := t.Err(); err != nil {
		return nil, err
	}
	if l.transposed {
		return l.vjp(v)
	}
	if len(v) != len(l.in) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "linear map takes %d tangents, got %d", len(l.in), len(v))
	}
	seeds := make(map[cr.NodeID]V, len(v))
	for k, id := range l.in {
		seeds[id] = v[k]
	}
	tan, err := t.ForwardTangents(seeds)
	if err != nil {
		return nil, err
	}
	return t.valuesOrZeros(l.out, tan.Of), nil
}

func (l *LinearMap[V]) vjp(w []V) ([]V, error) {
	t := l.tape
	if !t.enter() {
		return nil, errConcurrentUse
	}
	defer t.leave()
	if len(w) != len(l.out) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "transposed linear map takes %d cotangents, got %d", len(l.out), len(w))
	}
	seeds := make([]seedAt[V], len(w))
	top := 0
	for k, id := range l.out {
		i := id.Index()
		if err := t.checkSeed(i, id, w[k], "backward", "cotangent"); err != nil {
			return nil, err
		}
		seeds[k] = seedAt[V]{i, w[k]}
		top = max(top, t.groupEnd(i))
	}
	acc, _, err := t.sweep(seeds, nil, top, false, false, false, nil, nil)
	if err == nil && t.misused() {
		err = errConcurrentUse // a rule re-entered the tape during the sweep
	}
	if err != nil {
		return nil, err
	}
	g := &Gradients[V]{tape: t, acc: acc}
	return t.valuesOrZeros(l.in, g.Of), nil
}

// valuesOrZeros returns of(id) for each node id of ids, and the Space's zero shaped
// like id's value where of has none.
func (t *Tape[V]) valuesOrZeros(ids []cr.NodeID, of func(cr.NodeID) (V, bool)) []V {
	res := make([]V, len(ids))
	for k, id := range ids {
		var ok bool
		if res[k], ok = of(id); !ok {
			res[k] = t.space.Zero(t.at(id.Index()).value)
		}
	}
	return res
}

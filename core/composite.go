package core

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// CheckpointName is the op name of the nodes that Checkpoint records.
const CheckpointName = "checkpoint"

// CompositeOption configures Composite.
type CompositeOption func(*compositeConfig)

type compositeConfig struct {
	recompute bool
	nout      int
}

// Outputs makes a composite op have n outputs (1 by default): its body returns n
// nodes, and the op is recorded with Tape.ApplyMulti. Its pullback sweeps the inner
// tape from the cotangents of the outputs that were used.
func Outputs(n int) CompositeOption { return func(c *compositeConfig) { c.nout = n } }

// Recompute makes a composite op keep only its inputs and outputs and record its
// body again in every sweep that reaches it (gradient checkpointing: memory for
// time), instead of keeping the body's recording.
func Recompute() CompositeOption { return func(c *compositeConfig) { c.recompute = true } }

// Composite returns an op defined by body, a Go function that records other ops on a
// tape, with the shape of Checkpoint's function. The op takes arity inputs (any
// number for chainrules.Variadic; another count is an error wrapping
// chainrules.ErrInvalidArgument, so body may index its inputs freely). body receives a fresh inner tape on
// which the op's inputs are recorded (as leaves, or as constants for inputs whose
// cotangent nobody needs) and returns the output nodes: one, or n with the option
// Outputs(n). The op's three rules come from
// that recording:
//
//	pullback:      xbar = J^* ybar          the inner reverse sweep from ybar
//	forward:       ydot = J xdot            the inner forward sweep from xdot
//	second order:  (xbar, xbardot)          the inner forward sweep, then the inner
//	                                        second-order sweep from (ybar, ybardot)
//
// so its gradients, JVPs and Hessian-vector products are exactly those of recording
// body inline, while the outer tape shows one node named name (in DOT output, anomaly
// reports and errors: an error inside body names the composite and the inner op).
// Its inner tapes share the registry and the anomaly mode of the tape it is applied
// on, so overrides apply inside it, and anomaly mode names the inner op that made a
// NaN or an infinity, where it was recorded, and the composite.
//
// By default the inner recording is kept with the node; the Recompute option records
// body again in each sweep instead (Checkpoint is that). body must not record leaves
// of its own and may use only the NodeIDs it is given or records (an error wrapping
// chainrules.ErrInvalidArgument or ErrMissingNode otherwise); with Recompute it must
// be deterministic. The op is a chainrules.MaskedOp and can be registered and checked
// by testing/ruletest like any other op.
//
//	softmax := core.Composite("softmax", tensor.Space{}, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
//		lse := t.Apply(reduce.LogSumExpOp([]int{-1}, true), x[0])
//		return []cr.NodeID{t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x[0], lse))}
//	})
func Composite[V any](name string, space cr.Space[V], arity int, body func(t *Tape[V], in []cr.NodeID) []cr.NodeID, opts ...CompositeOption) cr.Op[V] {
	cfg := compositeConfig{nout: 1}
	for _, o := range opts {
		o(&cfg)
	}
	return compositeOp[V]{&composite[V]{name: name, space: space, arity: arity, nout: cfg.nout, body: body, recompute: cfg.recompute}}
}

// composite is the definition of a composite op.
type composite[V any] struct {
	name      string
	space     cr.Space[V]
	arity     int // number of inputs, or chainrules.Variadic
	nout      int
	body      func(*Tape[V], []cr.NodeID) []cr.NodeID
	recompute bool
	// reg and isFinite are the inner tapes' registry and anomaly check: the outer
	// tape's, set when the op is applied on a tape with either (see forInner).
	reg      *cr.Registry[V]
	isFinite func(V) bool
}

// forInner returns op, or, for a composite op applied on t while t has a registry
// or anomaly mode on, a copy that gives its inner tapes t's registry and anomaly
// check: an override applies inside the composite too, and a non-finite value in
// its body is reported by anomaly mode with the inner op that made it (and where
// it was recorded), under the composite's name.
func (t *Tape[V]) forInner(op cr.Op[V]) cr.Op[V] {
	if o, ok := op.(compositeOp[V]); ok {
		return compositeOp[V]{o.c.withOuter(t)}
	}
	return op
}

// withOuter returns a copy of c whose inner tapes take t's registry and anomaly check.
func (c *composite[V]) withOuter(t *Tape[V]) *composite[V] {
	cc := *c
	cc.reg, cc.isFinite = t.reg, t.isFinite
	return &cc
}

type compositeOp[V any] struct{ c *composite[V] }

func (o compositeOp[V]) Name() string    { return o.c.name }
func (o compositeOp[V]) NumOutputs() int { return o.c.nout }

func (o compositeOp[V]) Apply(in []cr.NodeID, x, y []V) (cr.Rule[V], error) {
	return o.ApplyMasked(in, x, y, nil)
}

func (o compositeOp[V]) ApplyMasked(in []cr.NodeID, x, y []V, need []bool) (cr.Rule[V], error) {
	r, err := o.c.apply(in, x, need)
	if err != nil {
		return nil, err
	}
	copy(y, r.y)
	return r, nil
}

// apply records body once (kept, or without rules when recomputing) and returns
// the rule. need[k] false (nil: all true) records input k as a constant.
func (c *composite[V]) apply(in []cr.NodeID, x []V, need []bool) (*compositeRule[V], error) {
	if err := checkArity(c.name, c.arity, in, x); err != nil {
		return nil, err
	}
	r := &compositeRule[V]{c: c, in: slices.Clone(in), x: slices.Clone(x), leaf: make([]bool, len(x))}
	for k := range r.leaf {
		r.leaf[k] = need == nil || need[k]
	}
	sub, ids, out, err := r.record(!c.recompute)
	if err != nil {
		// Name the composite also when it is applied without a tape (chainrules.Eval).
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	r.y = make([]V, len(out))
	for m, id := range out {
		r.y[m] = sub.at(id.Index()).value
	}
	if !c.recompute {
		r.sub, r.ids, r.out = sub, ids, out
	}
	return r, nil
}

// compositeRule differentiates a composite op through its inner recording.
type compositeRule[V any] struct {
	c    *composite[V]
	in   []cr.NodeID
	x    []V
	leaf []bool // leaf[k]: input k is a leaf of the inner tape (its cotangent is wanted)
	y    []V
	// The kept recording: nil when the op recomputes.
	sub      *Tape[V]
	ids, out []cr.NodeID
}

// record records body on a new inner tape (with rules when grad is set) and returns
// the tape, the inner NodeIDs of the inputs and the outputs.
func (r *compositeRule[V]) record(grad bool) (*Tape[V], []cr.NodeID, []cr.NodeID, error) {
	c := r.c
	sub := NewTape(c.space)
	sub.reg, sub.isFinite, sub.noGrad = c.reg, c.isFinite, !grad
	ids := make([]cr.NodeID, len(r.x))
	nleaves := 0
	for k, v := range r.x {
		if r.leaf[k] {
			ids[k] = sub.Leaf(v)
			nleaves++
		} else {
			ids[k] = sub.Constant(v)
		}
	}
	out := c.body(sub, slices.Clone(ids))
	if err := sub.Err(); err != nil {
		return nil, nil, nil, err
	}
	if len(out) != c.nout {
		return nil, nil, nil, cr.Errorf(cr.ErrInvalidArgument, "body returned %d outputs, want %d", len(out), c.nout)
	}
	for _, id := range out {
		if _, err := sub.index(id); err != nil {
			return nil, nil, nil, cr.Errorf(cr.ErrInvalidArgument, "body returned %v: %w", id, err)
		}
	}
	if sub.nleaves != nleaves {
		return nil, nil, nil, cr.Errorf(cr.ErrInvalidArgument, "body recorded %d leaves of its own", sub.nleaves-nleaves)
	}
	if r.y != nil {
		for m, id := range out {
			if v := sub.at(id.Index()).value; !sub.sameLayout(v, r.y[m]) {
				return nil, nil, nil, cr.Errorf(cr.ErrShapeMismatch, "body recomputed %s, it recorded %s (is it deterministic?)",
					c.space.Describe(v), c.space.Describe(r.y[m]))
			}
		}
	}
	return sub, ids, out, nil
}

// tape returns the inner recording with rules: the kept one, or a new one.
func (r *compositeRule[V]) tape() (*Tape[V], []cr.NodeID, []cr.NodeID, error) {
	if r.sub != nil {
		return r.sub, r.ids, r.out, nil
	}
	return r.record(true)
}

func (r *compositeRule[V]) Inputs() []cr.NodeID { return r.in }

// seeds returns the inner seeds at the outputs from the values v[m] with has[m].
func (r *compositeRule[V]) seeds(sub *Tape[V], out []cr.NodeID, v []V, has []bool) ([]seedAt[V], int, error) {
	var seeds []seedAt[V]
	top := 0
	for m, id := range out {
		if !has[m] {
			continue
		}
		i := id.Index()
		if err := sub.checkSeed(i, id, v[m], "backward", "cotangent"); err != nil {
			return nil, 0, err
		}
		seeds = append(seeds, seedAt[V]{i, v[m]})
		top = max(top, sub.groupEnd(i))
	}
	return seeds, top, nil
}

// cotangent returns the inner cotangent of input k from acc, zero if absent.
func (r *compositeRule[V]) cotangent(acc *accum[V], ids []cr.NodeID, k int) (V, bool) {
	if i := ids[k].Index(); i < len(acc.vals) && acc.state[i] != absent {
		return acc.vals[i], true
	}
	return r.c.space.Zero(r.x[k]), false
}

func (r *compositeRule[V]) Pullback(ybar []V, has []bool, dst []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	sub, ids, out, err := r.tape()
	if err != nil {
		return dst, err
	}
	seeds, top, err := r.seeds(sub, out, ybar, has)
	if err != nil {
		return dst, err
	}
	acc, _, err := sub.sweep(seeds, nil, top, false, true, false, nil, nil)
	if err != nil {
		return dst, err
	}
	for k, id := range r.in {
		if r.leaf[k] {
			v, _ := r.cotangent(&acc, ids, k)
			dst = append(dst, cr.Contribution[V]{Node: id, Value: v})
		}
	}
	return dst, nil
}

// innerTangents runs the inner forward sweep from the outer tangents of the inputs;
// nil when no input has a tangent.
func (r *compositeRule[V]) innerTangents(sub *Tape[V], ids []cr.NodeID, tangentOf cr.TangentOf[V]) (*Tangents[V], error) {
	var m map[cr.NodeID]V
	for k, id := range r.in {
		if !r.leaf[k] {
			continue
		}
		if v, ok := tangentOf(id); ok {
			if m == nil {
				m = make(map[cr.NodeID]V)
			}
			m[ids[k]] = v
		}
	}
	if m == nil {
		return nil, nil
	}
	return sub.ForwardTangents(m)
}

func (r *compositeRule[V]) anyTangent(tangentOf cr.TangentOf[V]) bool {
	for k, id := range r.in {
		if _, ok := tangentOf(id); ok && r.leaf[k] {
			return true
		}
	}
	return false
}

func (r *compositeRule[V]) Forward(tangentOf cr.TangentOf[V], ydot []V, has []bool) error {
	if !r.anyTangent(tangentOf) {
		return nil
	}
	sub, ids, out, err := r.tape()
	if err != nil {
		return err
	}
	tan, err := r.innerTangents(sub, ids, tangentOf)
	if err != nil {
		return err
	}
	for m, id := range out {
		ydot[m], has[m] = tan.Of(id)
	}
	return nil
}

func (r *compositeRule[V]) PullbackWithTangents(a cr.SecondOrderArgs[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error) {
	ct, has, tangentOf := a.Cotangents, a.Has, a.TangentOf
	sub, ids, out, err := r.tape()
	if err != nil {
		return dst, err
	}
	tan, err := r.innerTangents(sub, ids, tangentOf)
	if err != nil {
		return dst, err
	}
	if tan == nil {
		tan = &Tangents[V]{tape: sub, vals: make([]V, sub.n), has: make([]bool, sub.n)}
		tan.of = tan.Of
	}
	v, d := make([]V, len(ct)), make([]V, len(ct))
	dhas := make([]bool, len(ct))
	for m, c := range ct {
		v[m], d[m], dhas[m] = c.Value, c.Tangent, has[m] && c.HasTangent
	}
	seeds, top, err := r.seeds(sub, out, v, has)
	if err != nil {
		return dst, err
	}
	dseeds, dtop, err := r.seeds(sub, out, d, dhas)
	if err != nil {
		return dst, err
	}
	acc, dacc, err := sub.sweep(seeds, dseeds, max(top, dtop), false, true, false, tan, nil)
	if err != nil {
		return dst, err
	}
	for k, id := range r.in {
		if !r.leaf[k] {
			continue
		}
		var c cr.Dual[V]
		c.Value, _ = r.cotangent(&acc, ids, k)
		if i := ids[k].Index(); i < len(dacc.vals) && dacc.state[i] != absent {
			c.Tangent, c.HasTangent = dacc.vals[i], true
		}
		dst = append(dst, cr.DualContribution[V]{Node: id, Cotangent: c})
	}
	return dst, nil
}

// Checkpoint records y = f(inputs) as a single node without keeping f's
// intermediate values (gradient checkpointing, PyTorch's
// torch.utils.checkpoint): memory for time. It is the composite op of f with the
// Recompute option, applied on t.
//
// f receives a fresh inner tape, on which inputs are recorded as leaves (inputs
// that no leaf influences as constants), records its computation there and returns
// the output node. Checkpoint runs f once with gradients disabled, so that no rule
// is kept, and records the output. Each sweep that reaches the node runs f again on
// a new inner tape and sweeps that tape:
//
//   - the pullback re-records f and runs its reverse sweep from ybar;
//   - the forward rule re-records f and runs its forward sweep from the input
//     tangents;
//   - the second-order rule re-records f and runs its forward sweep and then its
//     second-order sweep from (ybar, ybardot).
//
// So gradients, tangents and Hessian-vector products equal those of recording f
// inline, while between sweeps the tape holds f's output and not its
// intermediates; during a sweep, one checkpoint's intermediates are alive at a time.
// A sweep from a chain of n ops cut into k checkpoints holds about n/k + k nodes
// instead of n, and runs each op twice (three times for a Hessian-vector product).
//
// f must be deterministic (the recomputed values are the recorded ones) and must not
// record leaves of its own; its only differentiable inputs are the ones it is given
// (an error wrapping chainrules.ErrInvalidArgument otherwise). Its recording errors
// become the tape's sticky error. The inner tape shares the outer tape's registry
// and anomaly mode; nested checkpoints work.
func (t *Tape[V]) Checkpoint(f func(sub *Tape[V], in []cr.NodeID) cr.NodeID, inputs ...cr.NodeID) cr.NodeID {
	op := Composite(CheckpointName, t.space, cr.Variadic, func(sub *Tape[V], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{f(sub, in)}
	}, Recompute())
	id := t.Apply(op, inputs...) // Apply gives c t's registry and anomaly mode
	if t.isFinite != nil && id.Valid() {
		t.setSite(id.Index(), callerPC()) // the caller of Checkpoint, not Checkpoint
	}
	return id
}

// checkArity checks the inputs of an op that takes arity inputs (or Variadic).
func checkArity[V any](name string, arity int, in []cr.NodeID, x []V) error {
	if len(in) != len(x) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: %d NodeIDs for %d values", name, len(in), len(x))
	}
	if arity != cr.Variadic && len(x) != arity {
		return cr.Errorf(cr.ErrInvalidArgument, "%s takes %d inputs, got %d", name, arity, len(x))
	}
	return nil
}

// RecordPullback records the composite's body again on the tape rec itself, at the
// nodes of the inputs, and then the recorded backward sweep of that recording from
// the cotangents of the outputs: the composite's derivatives of every order are
// those of the ops in its body.
func (r *compositeRule[V]) RecordPullback(rec cr.Recorder[V], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	t, ok := rec.(*Tape[V])
	if !ok {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "a composite op records its pullback on a core.Tape, not a %T", rec)
	}
	// An input named twice gets a distinct node per position (an identity), so that
	// the sweep below gives each position its own cotangent.
	x = slices.Clone(x)
	for k := range x {
		if slices.Contains(x[:k], x[k]) {
			x[k] = t.Apply(Identity[V](), x[k])
		}
	}
	nleaves := t.nleaves
	// The body is the primal again: its nodes are at the composite's own level (the
	// recorded sweep raised t.level by one for the pullback's ops).
	level := t.level
	t.level = max(level, 1) - 1
	outs := r.c.body(t, slices.Clone(x))
	t.level = level
	if err := t.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.c.name, err)
	}
	if t.nleaves != nleaves {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: body recorded %d leaves of its own", r.c.name, t.nleaves-nleaves)
	}
	if len(outs) != r.c.nout {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: body returned %d outputs, want %d", r.c.name, len(outs), r.c.nout)
	}
	var os, seeds, wrt []cr.NodeID
	for m, id := range outs {
		if ybar[m].Valid() {
			os, seeds = append(os, id), append(seeds, ybar[m])
		}
	}
	var pos []int // the inputs that get a cotangent: those that require gradients
	for k, id := range x {
		if r.leaf[k] && t.RequiresGrad(id) {
			wrt, pos = append(wrt, id), append(pos, k)
		}
	}
	xbar := make([]cr.NodeID, len(x))
	if len(os) == 0 || len(wrt) == 0 {
		return xbar, nil
	}
	g, err := t.gradGraph(os, seeds, wrt, true)
	if err != nil {
		return nil, err
	}
	for j, k := range pos {
		xbar[k] = g[j]
	}
	return xbar, nil
}

// identityOp is y = x, a linear op with every rule.
type identityOp[V any] struct{}

func (identityOp[V]) Name() string    { return "identity" }
func (identityOp[V]) NumOutputs() int { return 1 }

func (identityOp[V]) Apply(in []cr.NodeID, x, y []V) (cr.Rule[V], error) {
	if len(x) != 1 || len(in) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "identity: takes 1 input, got %d", len(x))
	}
	y[0] = x[0]
	id := func(v V) (V, error) { return v, nil }
	return cr.UnaryLinearRule(in[0], id, id), nil
}

// Identity returns the op y = x: linear, with every rule (its pullback passes ybar
// on, to every order). Recording it gives a value a node of its own, so that a
// recorded backward sweep (GradGraph) treats it as an independent variable.
func Identity[V any]() cr.Op[V] { return identityOp[V]{} }

package core

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// CheckpointName is the op name of the nodes that Checkpoint records.
const CheckpointName = "checkpoint"

// Checkpoint records y = f(inputs) as a single node without keeping f's
// intermediate values (gradient checkpointing, PyTorch's
// torch.utils.checkpoint): memory for time.
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
	if t.Err() != nil {
		return 0
	}
	var pc uintptr
	if t.isFinite != nil {
		pc = callerPC()
	}
	c := &checkpointRule[V]{parent: t, f: f, in: slices.Clone(inputs), x: make([]V, len(inputs)), leaf: make([]bool, len(inputs))}
	for k, id := range inputs {
		j, err := t.index(id)
		if err != nil {
			return t.fail(&cr.OpError{Op: CheckpointName, Phase: "apply", Err: err})
		}
		c.x[k] = t.at(j).value
		c.leaf[k] = t.at(j).flags&flagRequires != 0
		if c.leaf[k] {
			c.nleaves++
		}
	}
	sub, _, out, err := c.replay(false)
	if err != nil {
		return t.fail(&cr.OpError{Op: CheckpointName, Phase: "apply", Err: err})
	}
	c.y = sub.at(out.Index()).value
	return t.record(CheckpointName, c.y, c, pc)
}

// checkpointRule differentiates a checkpointed function by recomputing it.
type checkpointRule[V any] struct {
	parent  *Tape[V] // for the space, registry and anomaly mode (read at each replay)
	f       func(*Tape[V], []cr.NodeID) cr.NodeID
	in      []cr.NodeID
	x       []V
	leaf    []bool // leaf[k]: input k depends on a leaf of the outer tape
	nleaves int
	y       V
}

// replay records f on a new inner tape (with rules when grad is set) and returns the
// tape, the inner NodeIDs of the inputs and the output.
func (c *checkpointRule[V]) replay(grad bool) (*Tape[V], []cr.NodeID, cr.NodeID, error) {
	p := c.parent
	sub := NewTape(p.space)
	sub.reg, sub.isFinite, sub.noGrad = p.reg, p.isFinite, !grad
	ids := make([]cr.NodeID, len(c.x))
	for k, v := range c.x {
		if c.leaf[k] {
			ids[k] = sub.Leaf(v)
		} else {
			ids[k] = sub.Constant(v)
		}
	}
	out := c.f(sub, slices.Clone(ids))
	if err := sub.Err(); err != nil {
		return nil, nil, 0, err
	}
	o, err := sub.index(out)
	if err != nil {
		return nil, nil, 0, cr.Errorf(cr.ErrInvalidArgument, "checkpointed function returned %v: %v", out, err)
	}
	if sub.nleaves != c.nleaves {
		return nil, nil, 0, cr.Errorf(cr.ErrInvalidArgument, "checkpointed function recorded %d leaves of its own", sub.nleaves-c.nleaves)
	}
	if grad && !sub.sameLayout(sub.at(o).value, c.y) {
		return nil, nil, 0, cr.Errorf(cr.ErrShapeMismatch, "checkpointed function recomputed %s, it recorded %s (is it deterministic?)",
			p.space.Describe(sub.at(o).value), p.space.Describe(c.y))
	}
	return sub, ids, out, nil
}

func (c *checkpointRule[V]) Inputs() []cr.NodeID { return c.in }

// Pullback re-records f and returns the inner reverse sweep's cotangents of the
// inputs: J^* ybar.
func (c *checkpointRule[V]) Pullback(ybar V, dst []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	sub, ids, out, err := c.replay(true)
	if err != nil {
		return dst, err
	}
	g, err := sub.BackwardSeed(out, ybar)
	if err != nil {
		return dst, err
	}
	for k, id := range c.in {
		if c.leaf[k] {
			v, ok := g.Of(ids[k])
			if !ok {
				v = c.parent.space.Zero(c.x[k])
			}
			dst = append(dst, cr.Contribution[V]{Node: id, Value: v})
		}
	}
	return dst, nil
}

// seeds returns the inner tangent seeds from the outer tangents of the inputs.
func (c *checkpointRule[V]) seeds(ids []cr.NodeID, tangentOf cr.TangentOf[V]) map[cr.NodeID]V {
	m := make(map[cr.NodeID]V)
	for k, id := range c.in {
		if c.leaf[k] {
			if v, ok := tangentOf(id); ok {
				m[ids[k]] = v
			}
		}
	}
	return m
}

func (c *checkpointRule[V]) anyTangent(tangentOf cr.TangentOf[V]) bool {
	for _, id := range c.in {
		if _, ok := tangentOf(id); ok {
			return true
		}
	}
	return false
}

// ForwardTangents re-records f and returns the inner forward sweep's tangent of the
// output: ydot = sum_k J_k xdot_k.
func (c *checkpointRule[V]) ForwardTangents(tangentOf cr.TangentOf[V]) (V, bool, error) {
	var zero V
	if !c.anyTangent(tangentOf) {
		return zero, false, nil
	}
	sub, ids, out, err := c.replay(true)
	if err != nil {
		return zero, false, err
	}
	tan, err := sub.ForwardTangents(c.seeds(ids, tangentOf))
	if err != nil {
		return zero, false, err
	}
	v, ok := tan.Of(out)
	return v, ok, nil
}

// PullbackWithTangents re-records f, runs its forward sweep from the input tangents
// and its second-order sweep from ct, and returns the inputs' cotangent pairs.
func (c *checkpointRule[V]) PullbackWithTangents(ct cr.Dual[V], tangentOf cr.TangentOf[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error) {
	sub, ids, out, err := c.replay(true)
	if err != nil {
		return dst, err
	}
	tan, err := sub.ForwardTangents(c.seeds(ids, tangentOf))
	if err != nil {
		return dst, err
	}
	g, gdot, err := sub.BackwardWithTangentsSeed(out, ct, tan)
	if err != nil {
		return dst, err
	}
	for k, id := range c.in {
		if !c.leaf[k] {
			continue
		}
		v, ok := g.Of(ids[k])
		if !ok {
			v = c.parent.space.Zero(c.x[k])
		}
		d := cr.Dual[V]{Value: v}
		d.Tangent, d.HasTangent = gdot.Of(ids[k])
		dst = append(dst, cr.DualContribution[V]{Node: id, Cotangent: d})
	}
	return dst, nil
}

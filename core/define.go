package core

import (
	"errors"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Def defines an op by its primal and its pullback written with ops: the two
// functions a rule author writes, from which Define derives the op's forward tangent
// and its second-order rule, so the op gets exact JVPs and forward-over-reverse
// Hessian-vector products.
//
// Primal computes the outputs y = f(x) from the input values by any means (a LAPACK
// call, a loop): one value, or Outputs values for an op with several (eigh -> (w, V),
// qr -> (Q, R)). Pullback records, on the tape it is given, the cotangents of the
// inputs
//
//	xbar_k = sum_m J_mk(x)^* ybar_m
//
// from the nodes x (the inputs), y (the outputs) and ybar (the outputs' cotangents),
// using registered ops only, and returns one node per input: a cotangent shaped like
// that input, or the zero NodeID for an input whose cotangent is zero (or that is
// listed in NonDifferentiable). It must be linear in ybar; testing/ruletest checks
// this, with everything else. Pullback must not record leaves; it may read any node
// it is given as a value that carries derivatives (y depends on x).
//
// An output that nobody used has an absent cotangent, which is never materialised:
// its ybar[m] is the zero NodeID, so that the pullback leaves its term out,
//
//	if ybar[1].Valid() { ... add J_1k^* ybar[1] ... }
//
// and a pullback whose only term for an input is an absent cotangent returns that
// zero NodeID, which means a zero cotangent. A single-output op always has its
// cotangent. The cotangent of an output listed in NonDifferentiableOutputs is always
// absent. A pullback that applies an op to an absent cotangent anyway still works:
// the engine then records it a second time with a zero constant in place of each
// absent cotangent (it pays that recording, and the zeros, for the simpler
// pullback). Using a differentiable output and then ignoring its cotangent in
// Pullback is an error wrapping chainrules.ErrInvalidArgument.
//
// From the recorded pullback the engine derives
//
//	ydot    = J xdot                 transposing the recorded map ybar -> xbar
//	                                 (a reverse sweep of it, seeded with xdot);
//	xbardot = d/de P(x + e xdot, y + e ydot, ybar + e ybardot) at e = 0
//	                                 a forward sweep through the recorded pullback,
//
// where P is the pullback as a function of all its arguments, so the op's second
// derivatives are those of the ops the pullback uses. The second-order rule takes
// ydot from the forward sweep (chainrules.SecondOrderArgs) rather than transposing
// the pullback again. JAX's custom_vjp gives no forward mode; this does. Unlike a
// composite op (Composite), the primal need not be written with ops: a numerically
// stable primal, a straight-through or clipped gradient, or an implicit-function
// pullback (a fixed point, a linear solve) all fit.
type Def[V any] struct {
	Name  string
	Space cr.Space[V]
	// Arity is the number of inputs, or chainrules.Variadic; another count is an
	// error wrapping chainrules.ErrInvalidArgument, so Primal and Pullback may
	// index their inputs freely.
	Arity int
	// Outputs is the number of outputs; 0 means 1.
	Outputs int
	// Primal computes the outputs from the input values. It must not modify them.
	Primal func(x []V) ([]V, error)
	// Pullback records xbar = J^* ybar and returns one node per input.
	Pullback func(t *Tape[V], x, y, ybar []cr.NodeID) []cr.NodeID
	// NonDifferentiable lists the inputs that get no cotangent (indices, masks);
	// NonDifferentiableOutputs the outputs that carry no derivative.
	NonDifferentiable, NonDifferentiableOutputs []int
}

// Define returns the op that d defines (see Def). It implements chainrules.Op with
// all three rules and chainrules.PartialOp.
func Define[V any](d Def[V]) cr.Op[V] {
	return definedOp[V]{&definition[V]{
		name: d.Name, space: d.Space, arity: d.Arity, nout: max(d.Outputs, 1), primal: d.Primal, pullback: d.Pullback,
		Differentiability: cr.Differentiability{
			NonDifferentiable:        slices.Clone(d.NonDifferentiable),
			NonDifferentiableOutputs: slices.Clone(d.NonDifferentiableOutputs),
		},
	}}
}

type definition[V any] struct {
	name        string
	space       cr.Space[V]
	arity, nout int
	primal      func(x []V) ([]V, error)
	pullback    func(t *Tape[V], x, y, ybar []cr.NodeID) []cr.NodeID
	cr.Differentiability
}

func (d *definition[V]) apply(in []cr.NodeID, x []V) (*definedRule[V], error) {
	if d.primal == nil || d.pullback == nil || d.space == nil {
		return nil, cr.Errorf(cr.ErrNoRule, "op definition needs Space, Primal and Pullback")
	}
	if err := checkArity(d.name, d.arity, in, x); err != nil {
		return nil, err
	}
	y, err := d.primal(x)
	if err != nil {
		return nil, err
	}
	if len(y) != d.nout {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "primal returned %d outputs, want %d", len(y), d.nout)
	}
	return &definedRule[V]{d: d, in: slices.Clone(in), x: slices.Clone(x), y: y}, nil
}

type definedOp[V any] struct{ *definition[V] }

func (o definedOp[V]) Name() string    { return o.name }
func (o definedOp[V]) NumOutputs() int { return o.nout }

func (o definedOp[V]) Apply(in []cr.NodeID, x, y []V) (cr.Rule[V], error) {
	r, err := o.apply(in, x)
	if err != nil {
		return nil, err
	}
	copy(y, r.y)
	return r, nil
}

// definedRule differentiates a defined op by recording its pullback.
type definedRule[V any] struct {
	d  *definition[V]
	in []cr.NodeID
	x  []V
	y  []V
}

func (r *definedRule[V]) Inputs() []cr.NodeID { return r.in }

// recording is one recording of the pullback.
type recording[V any] struct {
	t          *Tape[V]
	x, y, ybar []cr.NodeID
	xbar       []cr.NodeID
}

// record records the pullback on a new tape. The inputs and outputs are leaves when
// primals is set (for the second-order rule) and constants otherwise. The cotangent
// of output m is a leaf valued ybar[m] where has[m]; elsewhere it is absent (the
// zero NodeID), or, with all, a zero leaf for each differentiable output (the
// forward and second-order rules transpose the recording, which needs a node for
// every output's cotangent). A pullback that applies an op to an absent cotangent
// is recorded again with a zero constant in its place.
func (r *definedRule[V]) record(ybar []V, has []bool, primals, all bool) (*recording[V], error) {
	rec, missing, err := r.recordOnce(ybar, has, primals, all, false)
	if err != nil && missing && errors.Is(err, cr.ErrMissingNode) {
		rec, _, err = r.recordOnce(ybar, has, primals, all, true)
	}
	return rec, err
}

// recordOnce is record, with zeros for the absent cotangents when zeros is set; it
// also reports whether some cotangent was absent.
func (r *definedRule[V]) recordOnce(ybar []V, has []bool, primals, all, zeros bool) (*recording[V], bool, error) {
	d := r.d
	t := NewTape(d.space)
	rec := &recording[V]{t: t, x: make([]cr.NodeID, len(r.x)), y: make([]cr.NodeID, len(r.y)), ybar: make([]cr.NodeID, len(r.y))}
	put := func(v V, leaf bool) cr.NodeID {
		if leaf {
			return t.Leaf(v)
		}
		return t.Constant(v)
	}
	for k, v := range r.x {
		rec.x[k] = put(v, primals)
	}
	for m, v := range r.y {
		rec.y[m] = put(v, primals)
	}
	missing := false
	for m, v := range r.y {
		switch {
		case has != nil && has[m]:
			rec.ybar[m] = put(ybar[m], true)
		case all && d.OutputDifferentiable(m):
			rec.ybar[m] = put(d.space.Zero(v), true)
		case zeros:
			rec.ybar[m] = put(d.space.Zero(v), false)
		default:
			missing = true
		}
	}
	rec, err := r.runPullback(rec)
	return rec, missing, err
}

// runPullback records the pullback on rec's tape and checks what it returns.
func (r *definedRule[V]) runPullback(rec *recording[V]) (*recording[V], error) {
	d, t := r.d, rec.t
	nleaves := t.nleaves
	rec.xbar = d.pullback(t, slices.Clone(rec.x), slices.Clone(rec.y), slices.Clone(rec.ybar))
	if err := t.Err(); err != nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback: %w", err)
	}
	if t.nleaves != nleaves {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback recorded %d leaves of its own", t.nleaves-nleaves)
	}
	if len(rec.xbar) != len(r.x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback returned %d cotangents for %d inputs", len(rec.xbar), len(r.x))
	}
	for k, id := range rec.xbar {
		if !id.Valid() {
			continue
		}
		i, err := t.index(id)
		if err != nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback's cotangent of input %d: %w", k, err)
		}
		if v := t.at(i).value; !t.sameLayout(v, r.x[k]) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "pullback's cotangent of input %d is %s, the input is %s",
				k, d.space.Describe(v), d.space.Describe(r.x[k]))
		}
	}
	return rec, nil
}

// checkUsed returns an error if the recorded pullback ignores the cotangent of an
// output m with has[m]: a used output whose derivative the op would drop.
func (r *definedRule[V]) checkUsed(rec *recording[V], has []bool) error {
	t := rec.t
	reached := make([]bool, t.n)
	for _, id := range rec.xbar {
		if id.Valid() {
			reached[id.Index()] = true
		}
	}
	for i := t.n - 1; i >= 0; i-- {
		if !reached[i] {
			continue
		}
		if rule := t.ruleOf(i); rule != nil {
			for _, in := range rule.Inputs() {
				reached[in.Index()] = true
			}
		}
	}
	for m, ok := range has {
		if ok && (!rec.ybar[m].Valid() || !reached[rec.ybar[m].Index()]) {
			return cr.Errorf(cr.ErrInvalidArgument, "the pullback ignores the cotangent of output %d, which was used", m)
		}
	}
	return nil
}

// cotangents returns the differentiable inputs' cotangents as contributions.
func (r *definedRule[V]) xbar(rec *recording[V], k int) V {
	if id := rec.xbar[k]; id.Valid() {
		return rec.t.at(id.Index()).value
	}
	return r.d.space.Zero(r.x[k])
}

func (r *definedRule[V]) Pullback(ybar []V, has []bool, dst []cr.Contribution[V]) ([]cr.Contribution[V], error) {
	rec, err := r.record(ybar, has, false, false)
	if err != nil {
		return dst, err
	}
	if err := r.checkUsed(rec, has); err != nil {
		return dst, err
	}
	for k, id := range r.in {
		if r.d.Differentiable(k) {
			dst = append(dst, cr.Contribution[V]{Node: id, Value: r.xbar(rec, k)})
		}
	}
	return dst, nil
}

// jvp returns the output tangents ydot_m = sum_k J_mk xdot_k by a reverse sweep of
// the recorded pullback (linear in ybar, so the cotangent it gives a ybar leaf is
// the transposed map applied to the seeds), and false when no input has a tangent.
func (r *definedRule[V]) jvp(rec *recording[V], tangentOf cr.TangentOf[V]) ([]V, []bool, bool, error) {
	t := rec.t
	var seeds []seedAt[V]
	top := 0
	for k, id := range r.in {
		if !r.d.Differentiable(k) || !rec.xbar[k].Valid() {
			continue
		}
		if v, ok := tangentOf(id); ok {
			i := rec.xbar[k].Index()
			seeds = append(seeds, seedAt[V]{i, v})
			top = max(top, t.groupEnd(i))
		}
	}
	ydot, has := make([]V, len(r.y)), make([]bool, len(r.y))
	if len(seeds) == 0 {
		return ydot, has, false, nil
	}
	acc, _, err := t.sweep(seeds, nil, top, false, false, false, nil, nil)
	if err != nil {
		return nil, nil, false, err
	}
	for m, id := range rec.ybar {
		if i := id.Index(); id.Valid() && r.d.OutputDifferentiable(m) && i < len(acc.vals) && acc.state[i] != absent {
			ydot[m], has[m] = acc.vals[i], true
		}
	}
	return ydot, has, true, nil
}

func (r *definedRule[V]) Forward(tangentOf cr.TangentOf[V], ydot []V, has []bool) error {
	any := false
	for k, id := range r.in {
		if _, ok := tangentOf(id); ok && r.d.Differentiable(k) {
			any = true
		}
	}
	if !any {
		return nil
	}
	rec, err := r.record(nil, nil, false, true)
	if err != nil {
		return err
	}
	// The pullback must not ignore a differentiable output's cotangent: the
	// transposed map would give that output a zero tangent, silently. Reverse
	// sweeps refuse it for the outputs that were used (checkUsed); a forward
	// sweep cannot tell which will be, so it refuses it for all.
	diff := make([]bool, len(r.y))
	for m := range diff {
		diff[m] = r.d.OutputDifferentiable(m)
	}
	if err := r.checkUsed(rec, diff); err != nil {
		return err
	}
	yd, h, _, err := r.jvp(rec, tangentOf)
	if err != nil {
		return err
	}
	copy(ydot, yd)
	copy(has, h)
	return nil
}

func (r *definedRule[V]) PullbackWithTangents(a cr.SecondOrderArgs[V], dst []cr.DualContribution[V]) ([]cr.DualContribution[V], error) {
	ct, has, tangentOf := a.Cotangents, a.Has, a.TangentOf
	ybar := make([]V, len(ct))
	for m, c := range ct {
		ybar[m] = c.Value
	}
	rec, err := r.record(ybar, has, true, true)
	if err != nil {
		return dst, err
	}
	if err := r.checkUsed(rec, has); err != nil {
		return dst, err
	}
	// The forward sweep through P(x, y, ybar) is seeded with the tangents of its
	// arguments: xdot from the inputs, ydot as the forward sweep computed it (with
	// this rule's Forward), and ybardot.
	seeds := make(map[cr.NodeID]V)
	for k, id := range r.in {
		if v, ok := tangentOf(id); ok && r.d.Differentiable(k) {
			seeds[rec.x[k]] = v
		}
	}
	for m := range r.y {
		if o := a.Outputs[m]; o.HasTangent && r.d.OutputDifferentiable(m) {
			seeds[rec.y[m]] = o.Tangent
		}
		if has[m] && ct[m].HasTangent {
			seeds[rec.ybar[m]] = ct[m].Tangent
		}
	}
	tan, err := rec.t.ForwardTangents(seeds)
	if err != nil {
		return dst, err
	}
	for k, id := range r.in {
		if !r.d.Differentiable(k) {
			continue
		}
		c := cr.Dual[V]{Value: r.xbar(rec, k)}
		if xb := rec.xbar[k]; xb.Valid() {
			c.Tangent, c.HasTangent = tan.Of(xb)
		}
		dst = append(dst, cr.DualContribution[V]{Node: id, Cotangent: c})
	}
	return dst, nil
}

// RecordPullback records the pullback on the tape rec itself, at the nodes of the
// inputs, the outputs and their cotangents: the defined op's derivatives of every
// order are those of the ops its pullback uses. An absent cotangent reaches the
// pullback as the zero NodeID, unless the pullback applies an op to it (found by
// recording it once on a scratch tape), when it gets a zero constant instead.
func (r *definedRule[V]) RecordPullback(rec cr.Recorder[V], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	t, ok := rec.(*Tape[V])
	if !ok {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "a defined op records its pullback on a core.Tape, not a %T", rec)
	}
	ybar = slices.Clone(ybar)
	has := make([]bool, len(ybar))
	vals := make([]V, len(ybar))
	absent := false
	for m, id := range ybar {
		if id.Valid() {
			v, err := t.Value(id)
			if err != nil {
				return nil, err
			}
			vals[m], has[m] = v, true
		} else {
			absent = true
		}
	}
	if absent {
		// Does the pullback apply an op to an absent cotangent? Then it gets zeros.
		if _, missing, err := r.recordOnce(vals, has, false, false, false); err != nil && missing && errors.Is(err, cr.ErrMissingNode) {
			for m, id := range ybar {
				if !id.Valid() {
					ybar[m] = t.Constant(r.d.space.Zero(r.y[m]))
				}
			}
		}
	}
	nleaves := t.nleaves
	xbar := r.d.pullback(t, slices.Clone(x), slices.Clone(y), ybar)
	if err := t.Err(); err != nil {
		return nil, err
	}
	if t.nleaves != nleaves {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback recorded %d leaves of its own", t.nleaves-nleaves)
	}
	if len(xbar) != len(x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "pullback returned %d cotangents for %d inputs", len(xbar), len(x))
	}
	xbar = slices.Clone(xbar)
	for k := range xbar {
		if !r.d.Differentiable(k) {
			xbar[k] = 0
		}
	}
	return xbar, nil
}

package chainrules

// Contribution is one term of a pullback: the cotangent Value that flows to the
// input Node. The engine adds the contributions that reach the same node.
type Contribution[V any] struct {
	Node  NodeID
	Value V
}

// Op is an operation: a family member with its parameters fixed (an einsum spec, the
// axes of a reduction, or nothing for exp). It has NumOutputs outputs,
//
//	(y_0, ..., y_{m-1}) = f(x_1, ..., x_n),
//
// one for most ops, several for eigh -> (w, V), qr -> (Q, R), slogdet, split or
// topk -> (values, indices). This is the one kind of op: a single-output op is the
// case m = 1, and the engine runs it without allocating slices for its one output.
//
// Apply computes the outputs from the input values, writes y_j into y[j] (len(y) is
// NumOutputs(), and the slots arrive zeroed) and returns the rule that differentiates
// f at x. in[k] is the NodeID of x[k]; the rule reports them from Inputs.
//
// NumOutputs is fixed by the op's parameters, so that a recorder can return that many
// NodeIDs even when Apply fails. Apply must not retain the slices in, x and y (it may
// retain their elements) and must not modify the input values. It returns errors,
// never panics, for bad input.
type Op[V any] interface {
	// Name returns the name of the op family, which is also its registry key.
	Name() string
	// NumOutputs returns the number of outputs, at least 1.
	NumOutputs() int
	Apply(in []NodeID, x, y []V) (Rule[V], error)
}

// Rule differentiates one recorded op at the point where it was recorded.
//
// For outputs y_j = f_j(x_1, ..., x_n), Pullback maps the output cotangents to
//
//	xbar_k = sum_j J_jk^* ybar_j,   J_jk = df_j/dx_k,
//
// for each differentiable input k, where J^* is the adjoint under the real inner
// product Re<a, b>. It appends one Contribution per differentiable input to dst and
// returns the extended slice (the strconv.AppendInt idiom, so that the engine can
// reuse one buffer and a scalar rule costs no allocation).
//
// ybar and has have one slot per output. has[j] == false means that output j's
// cotangent is zero (no use of y_j reached the loss, or y_j is not differentiable);
// ybar[j] is then not read and the zero is never materialised. At least one has[j]
// is true; for a single-output op has[0] is always true, so its rule reads ybar[0]
// alone.
//
// Pullback must not mutate ybar, the values it captured, or the cotangent values it
// returned earlier, must not retain the slices ybar and has (the engine reuses
// them), and may be called any number of times.
type Rule[V any] interface {
	// Inputs returns the NodeIDs of the op's inputs in order. The engine reads it to
	// know what a node depends on; the caller must not modify the slice.
	Inputs() []NodeID
	// Pullback appends xbar_k = sum_j J_jk^* ybar_j for each differentiable input k
	// to dst.
	Pullback(ybar []V, has []bool, dst []Contribution[V]) ([]Contribution[V], error)
}

// TangentOf reports the tangent of a node during a forward sweep. ok == false means
// the tangent is zero (the node does not depend on any seeded direction); the value
// returned then is meaningless.
type TangentOf[V any] func(id NodeID) (tangent V, ok bool)

// ForwardRule is the optional forward-mode rule of a Rule. Forward writes the output
// tangents
//
//	ydot_j = sum_k J_jk xdot_k
//
// into ydot[j] and sets has[j], from the input tangents given by tangentOf (absent
// ones are zero). ydot and has have one slot per output and arrive cleared; leaving
// has[j] false says that ydot_j is zero (always the case for a non-differentiable
// output, whose slot the engine ignores), which is how a rule reports, without
// allocating, that no input tangent reaches it. Forward must not retain ydot and has.
type ForwardRule[V any] interface {
	Forward(tangentOf TangentOf[V], ydot []V, has []bool) error
}

// Dual is a value together with its tangent: the pair (a, adot) of a + e*adot.
// HasTangent == false means the tangent is zero; Tangent is then not read.
type Dual[V any] struct {
	Value      V
	Tangent    V
	HasTangent bool
}

// DualContribution is one term of a second-order pullback: the cotangent of the input
// Node and that cotangent's tangent.
type DualContribution[V any] struct {
	Node      NodeID
	Cotangent Dual[V]
}

// SecondOrderArgs is what a second-order sweep gives a rule: for each output j its
// cotangent pair (ybar_j, ybardot_j) and its value with its forward tangent
// (y_j, ydot_j), and the tangents xdot of the inputs.
//
// Has[j] == false means that output j's cotangent pair is zero (Cotangents[j] is
// then not read); Cotangents[j].HasTangent == false that ybardot_j alone is zero.
// Outputs[j].HasTangent == false means ydot_j is zero. The output tangents are the
// ones the forward sweep computed with the rule's own Forward, so a rule that needs
// them (a rule that transposes a recorded map, or one written in terms of y) reads
// them here instead of computing them again.
type SecondOrderArgs[V any] struct {
	Cotangents []Dual[V]
	Has        []bool
	Outputs    []Dual[V]
	TangentOf  TangentOf[V]
}

// SecondOrderRule is the optional rule that forward-over-reverse Hessian-vector
// products run. With the arguments a (see SecondOrderArgs), PullbackWithTangents
// appends for each differentiable input k the pair
//
//	xbar_k    = sum_j J_jk(x)^* ybar_j
//	xbardot_k = d/de [ sum_j J_jk(x + e xdot)^* (ybar_j + e ybardot_j) ] at e = 0
//	          = sum_j [ J_jk(x)^* ybardot_j + sum_i (d/dx_i J_jk(x)^* ybar_j) xdot_i ]
//
// to dst. The second term holds the op's second derivatives; it is what makes
// Hessian-vector products exact. xbardot_k may be marked absent (HasTangent false)
// only when it is exactly zero. The slices of a must not be retained.
//
// A rule without this method makes a Hessian-vector product fail with an error that
// wraps ErrHVPNotSupported and names the op, unless no tangent reaches the rule (then
// the plain Pullback is exact).
type SecondOrderRule[V any] interface {
	PullbackWithTangents(a SecondOrderArgs[V], dst []DualContribution[V]) ([]DualContribution[V], error)
}

// MaskedOp is an Op that can skip the work of differentiating inputs whose
// cotangents nobody needs: data and labels recorded as constants, values computed
// from constants only, and everything inside a no-grad scope. A tape calls
// ApplyMasked instead of Apply, with need[k] false when no leaf influences input k.
// The rule it returns may then leave input k out of its pullback and its
// second-order pullback, and keep no residuals for it (for y = X W with constant data
// X, the pullback computes only Wbar = X^T ybar: one matrix product instead of two).
// An input whose need is false also has a zero tangent in every forward sweep.
//
// ApplyMasked with every need true must be equivalent to Apply; the checker in
// testing/ruletest applies ops through Apply.
type MaskedOp[V any] interface {
	Op[V]
	ApplyMasked(in []NodeID, x, y []V, need []bool) (Rule[V], error)
}

// PartialOp is implemented by an op some of whose inputs or outputs do not carry
// derivatives: a boolean mask or integer indices as inputs, integer indices or
// pivots as outputs (topk, sort, lu_factor). Differentiable(k) reports whether input
// k gets a contribution from the pullback; OutputDifferentiable(j) whether output j
// carries derivatives. A non-differentiable output is recorded like a constant: no
// cotangent ever reaches it and it has no tangent, so the rule never sees a
// cotangent or computes a tangent for it. Ops that do not implement PartialOp are
// differentiable in every input and output; embedding [Differentiability] implements
// it from two lists.
type PartialOp interface {
	Differentiable(k int) bool
	OutputDifferentiable(j int) bool
}

// Differentiability implements PartialOp from the lists of the inputs and outputs
// that carry no derivative; embed it in an op type.
type Differentiability struct {
	NonDifferentiable        []int // inputs that get no cotangent
	NonDifferentiableOutputs []int // outputs that carry no derivative
}

// Differentiable reports whether input k is not listed in d.NonDifferentiable.
func (d Differentiability) Differentiable(k int) bool { return !contains(d.NonDifferentiable, k) }

// OutputDifferentiable reports whether output j is not listed in
// d.NonDifferentiableOutputs.
func (d Differentiability) OutputDifferentiable(j int) bool {
	return !contains(d.NonDifferentiableOutputs, j)
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// IsDifferentiable reports whether op's input k receives a cotangent.
func IsDifferentiable[V any](op Op[V], k int) bool {
	if p, ok := op.(PartialOp); ok {
		return p.Differentiable(k)
	}
	return true
}

// IsOutputDifferentiable reports whether output j of op carries derivatives.
func IsOutputDifferentiable[V any](op Op[V], j int) bool {
	if p, ok := op.(PartialOp); ok {
		return p.OutputDifferentiable(j)
	}
	return true
}

// OneOutput gives a single-output op its NumOutputs method; embed it in the op type:
//
//	type expOp struct{ chainrules.OneOutput }
type OneOutput struct{}

// NumOutputs returns 1.
func (OneOutput) NumOutputs() int { return 1 }

// OpFunc adapts a function to the Op interface for a single-output op: the quickest
// way for a downstream program to define one. F returns the output value and its
// rule.
type OpFunc[V any] struct {
	OpName string
	F      func(in []NodeID, x []V) (V, Rule[V], error)
}

// Name returns o.OpName.
func (o OpFunc[V]) Name() string { return o.OpName }

// NumOutputs returns 1.
func (o OpFunc[V]) NumOutputs() int { return 1 }

// Apply calls o.F and stores its value in y[0].
func (o OpFunc[V]) Apply(in []NodeID, x, y []V) (Rule[V], error) {
	v, r, err := o.F(in, x)
	if err != nil {
		return nil, err
	}
	y[0] = v
	return r, nil
}

// Recorder is what op packages need from a tape: apply an op to recorded values and
// read a value back. core.Tape implements it. Errors are sticky: after the first
// failure Apply returns the zero NodeID, ApplyMulti op.NumOutputs() zero NodeIDs, and
// Err reports the failure.
type Recorder[V any] interface {
	// Apply records a single-output op and returns its output; an op with another
	// number of outputs is an error wrapping ErrInvalidArgument.
	Apply(op Op[V], inputs ...NodeID) NodeID
	// ApplyMulti records an op and returns its NumOutputs() outputs in order.
	ApplyMulti(op Op[V], inputs ...NodeID) []NodeID
	Value(id NodeID) (V, error)
	Err() error
}

// Eval computes the output of a single-output op at the values x without a tape:
// the one way every package evaluates an op for its plain functions
// (elementwise.Exp(x) is Eval(ExpOp, x)). The rule that Apply returns is dropped. An
// op with several outputs is an error wrapping ErrInvalidArgument (use EvalMulti).
func Eval[V any](op Op[V], x ...V) (V, error) {
	var zero V
	if k := op.NumOutputs(); k != 1 {
		return zero, Errorf(ErrInvalidArgument, "%s has %d outputs: evaluate it with EvalMulti", op.Name(), k)
	}
	var y [1]V
	if _, err := op.Apply(make([]NodeID, len(x)), x, y[:]); err != nil {
		return zero, err
	}
	return y[0], nil
}

// EvalMulti computes all outputs of op at the values x without a tape, as Eval does
// for a single-output op.
func EvalMulti[V any](op Op[V], x ...V) ([]V, error) {
	k := op.NumOutputs()
	if k < 1 {
		return nil, Errorf(ErrInvalidArgument, "%s reports %d outputs", op.Name(), k)
	}
	y := make([]V, k)
	if _, err := op.Apply(make([]NodeID, len(x)), x, y); err != nil {
		return nil, err
	}
	return y, nil
}

// PullbackWithTangentsOf runs rule's second-order method for a rule that another
// rule calls (a rule built from other ops' rules): it computes the outputs' tangents
// ydot_j with the rule's own Forward, as the engine's forward sweep does, and passes
// them with the outputs y, the cotangent pairs ct (has[j] false: absent) and
// tangentOf. A rule without SecondOrderRule is an error wrapping
// ErrHVPNotSupported; one without ForwardRule gets zero output tangents.
func PullbackWithTangentsOf[V any](rule Rule[V], y []V, ct []Dual[V], has []bool, tangentOf TangentOf[V], dst []DualContribution[V]) ([]DualContribution[V], error) {
	sr, ok := rule.(SecondOrderRule[V])
	if !ok {
		return dst, ErrHVPNotSupported
	}
	outs := make([]Dual[V], len(y))
	for j, v := range y {
		outs[j].Value = v
	}
	if fr, ok := rule.(ForwardRule[V]); ok {
		ydot, yhas := make([]V, len(y)), make([]bool, len(y))
		if err := fr.Forward(tangentOf, ydot, yhas); err != nil {
			return dst, err
		}
		for j := range outs {
			outs[j].Tangent, outs[j].HasTangent = ydot[j], yhas[j]
		}
	}
	return sr.PullbackWithTangents(SecondOrderArgs[V]{Cotangents: ct, Has: has, Outputs: outs, TangentOf: tangentOf}, dst)
}

package chainrules

// MultiOp is an operation with several outputs: eigh -> (w, V), qr -> (Q, R),
// slogdet -> (sign, logabsdet), split, topk -> (values, indices). ApplyMulti computes
// the outputs y_0, ..., y_{m-1} of f(x) and returns one rule that differentiates all
// of them; a tape records each output as a NodeID of its own (core.Tape.ApplyMulti).
//
// NumOutputs is fixed by the op's parameters, so that a recorder can return that many
// NodeIDs even when ApplyMulti fails. ApplyMulti must return exactly NumOutputs
// values. As for Op.Apply, it must not retain the slices in and x nor modify the
// input values, and it returns errors, never panics, for bad input.
type MultiOp[V any] interface {
	// Name returns the name of the op family, which is also its registry key.
	Name() string
	// NumOutputs returns the number of outputs.
	NumOutputs() int
	ApplyMulti(in []NodeID, x []V) (y []V, rule MultiRule[V], err error)
}

// PartialOutputs is implemented by a MultiOp some of whose outputs are not
// differentiable, such as integer indices (topk, sort, LU pivots). A
// non-differentiable output is recorded like a constant: no
// cotangent ever reaches it and it has no tangent, so the rule never sees a
// cotangent or computes a tangent for it.
type PartialOutputs interface {
	OutputDifferentiable(m int) bool
}

// IsOutputDifferentiable reports whether output m of op carries derivatives.
func IsOutputDifferentiable[V any](op MultiOp[V], m int) bool {
	if p, ok := op.(PartialOutputs); ok {
		return p.OutputDifferentiable(m)
	}
	return true
}

// MultiRule differentiates one recorded multi-output op. For outputs
// y_m = f_m(x_1, ..., x_n), PullbackMulti maps the output cotangents to
//
//	xbar_k = sum_m J_mk^* ybar_m,   J_mk = df_m/dx_k,
//
// and appends one Contribution per differentiable input k to dst, as
// ReverseRule.Pullback does. has[m] == false means that output m's cotangent is zero
// (no use of y_m reached the loss, or y_m is not differentiable); ybar[m] is then not
// read and the zero is never materialised. At least one has[m] is true.
//
// The contract of ReverseRule holds: no mutation of the arguments or of captured
// values, any number of calls, errors rather than zeros.
type MultiRule[V any] interface {
	// Inputs returns the NodeIDs of the op's inputs in order.
	Inputs() []NodeID
	PullbackMulti(ybar []V, has []bool, dst []Contribution[V]) ([]Contribution[V], error)
}

// MultiForwardRule is the optional forward-mode rule of a MultiRule. It writes the
// output tangents
//
//	ydot_m = sum_k J_mk xdot_k
//
// into ydot[m] and sets has[m], from the input tangents given by tangentOf (absent
// ones are zero). ydot and has have one slot per output and arrive cleared; leaving
// has[m] false says that ydot_m is zero (always the case for a non-differentiable
// output, whose slot the engine ignores).
type MultiForwardRule[V any] interface {
	ForwardTangentsMulti(tangentOf TangentOf[V], ydot []V, has []bool) error
}

// MultiSecondOrderRule is the optional second-order rule of a MultiRule. With the
// cotangent pairs ct[m] = (ybar_m, ybardot_m) of the outputs (has[m] false: both
// zero; ct[m].HasTangent false: ybardot_m zero) and the input tangents xdot_j given
// by tangentOf, it appends for each differentiable input k
//
//	xbar_k    = sum_m J_mk(x)^* ybar_m
//	xbardot_k = sum_m [ J_mk(x)^* ybardot_m + sum_j (d/dx_j J_mk(x)^* ybar_m) xdot_j ]
//
// to dst, as SecondOrderRule.PullbackWithTangents does for one output.
type MultiSecondOrderRule[V any] interface {
	PullbackWithTangentsMulti(ct []Dual[V], has []bool, tangentOf TangentOf[V], dst []DualContribution[V]) ([]DualContribution[V], error)
}

// MultiRecorder is a Recorder that also records multi-output ops; core.Tape
// implements it. After an error ApplyMulti returns op.NumOutputs() zero NodeIDs.
type MultiRecorder[V any] interface {
	Recorder[V]
	ApplyMulti(op MultiOp[V], inputs ...NodeID) []NodeID
}

// EvalMulti computes a multi-output op's outputs at the values x without a tape, as
// Eval does for an Op.
func EvalMulti[V any](op MultiOp[V], x ...V) ([]V, error) {
	y, _, err := op.ApplyMulti(make([]NodeID, len(x)), x)
	return y, err
}

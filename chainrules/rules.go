package chainrules

// Contribution is one term of a pullback: the cotangent Value that flows to the
// input Node. The engine adds the contributions that reach the same node.
type Contribution[V any] struct {
	Node  NodeID
	Value V
}

// ReverseRule differentiates one recorded op at the point where it was recorded.
//
// For y = f(x_1, ..., x_n), Pullback maps the output cotangent ybar to
// xbar_k = J_k^* ybar for each differentiable input k, where J_k^* is the adjoint of
// the Jacobian J_k = df/dx_k under the real inner product Re<a, b>. It appends one
// Contribution per differentiable input to dst and returns the extended slice (the
// strconv.AppendInt idiom, so that the engine can reuse one buffer and a scalar rule
// costs no allocation).
//
// Pullback must not mutate ybar, the values it captured, or the cotangent values it
// returned earlier, and may be called any number of times.
type ReverseRule[V any] interface {
	// Inputs returns the NodeIDs of the op's inputs in order. The engine reads it to
	// know what a node depends on; the caller must not modify the slice.
	Inputs() []NodeID
	// Pullback appends J_k^* ybar for each differentiable input k to dst.
	Pullback(ybar V, dst []Contribution[V]) ([]Contribution[V], error)
}

// TangentOf reports the tangent of a node during a forward sweep. ok == false means
// the tangent is zero (the node does not depend on any seeded direction); the value
// returned then is meaningless.
type TangentOf[V any] func(id NodeID) (tangent V, ok bool)

// ForwardRule is the optional forward-mode rule of a ReverseRule. ForwardTangents
// returns the output tangent
//
//	ydot = sum_k J_k xdot_k
//
// from the input tangents given by tangentOf. An input whose tangent is absent
// contributes zero. If every input tangent is absent the rule may return ok == false
// ("the tangent is zero") without allocating.
type ForwardRule[V any] interface {
	ForwardTangents(tangentOf TangentOf[V]) (ydot V, ok bool, err error)
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

// SecondOrderRule is the optional rule that forward-over-reverse Hessian-vector
// products run. With ybar = ct.Value, ybardot = ct.Tangent and the input tangents
// xdot_j given by tangentOf, PullbackWithTangents appends for each differentiable
// input k the pair
//
//	xbar_k    = J_k(x)^* ybar
//	xbardot_k = d/de [ J_k(x + e xdot)^* (ybar + e ybardot) ] at e = 0
//	          = J_k(x)^* ybardot + sum_j (d/dx_j J_k(x)^* ybar) xdot_j
//
// to dst. The second term holds the op's second derivatives; it is what makes
// Hessian-vector products exact. xbardot_k may be marked absent (HasTangent false)
// only when it is exactly zero.
//
// A rule without this method makes a Hessian-vector product fail with an error that
// wraps ErrHVPNotSupported and names the op, unless no tangent reaches the rule (then
// the plain Pullback is exact).
type SecondOrderRule[V any] interface {
	PullbackWithTangents(ct Dual[V], tangentOf TangentOf[V], dst []DualContribution[V]) ([]DualContribution[V], error)
}

// Op is an operation: a family member with its parameters fixed (an einsum spec, the
// axes of a reduction, or nothing for exp). Apply computes the primal output
// y = f(x) from the input values and returns the rule that differentiates f at x.
// in[k] is the NodeID of x[k]; the rule reports them from Inputs.
//
// Apply must not retain the slices in and x (it may retain their elements) and must
// not modify the input values. It returns errors, never panics, for bad input.
type Op[V any] interface {
	// Name returns the name of the op family, which is also its registry key.
	Name() string
	Apply(in []NodeID, x []V) (y V, rule ReverseRule[V], err error)
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
	ApplyMasked(in []NodeID, x []V, need []bool) (y V, rule ReverseRule[V], err error)
}

// PartialOp is implemented by an Op some of whose inputs are not differentiable (a
// boolean mask, integer indices). Differentiable(k) reports whether input k gets a
// contribution from the pullback. Ops that do not implement it are differentiable in
// every input.
type PartialOp interface {
	Differentiable(k int) bool
}

// IsDifferentiable reports whether op's input k receives a cotangent.
func IsDifferentiable[V any](op Op[V], k int) bool {
	if p, ok := op.(PartialOp); ok {
		return p.Differentiable(k)
	}
	return true
}

// OpFunc adapts a function to the Op interface: the quickest way for a downstream
// program to define an op.
type OpFunc[V any] struct {
	OpName string
	F      func(in []NodeID, x []V) (V, ReverseRule[V], error)
}

// Name returns o.OpName.
func (o OpFunc[V]) Name() string { return o.OpName }

// Apply calls o.F.
func (o OpFunc[V]) Apply(in []NodeID, x []V) (V, ReverseRule[V], error) { return o.F(in, x) }

// Recorder is what op packages need from a tape: apply an op to recorded values and
// read a value back. core.Tape implements it. Errors are sticky: after the first
// failure Apply returns the zero NodeID and Err reports the failure.
type Recorder[V any] interface {
	Apply(op Op[V], inputs ...NodeID) NodeID
	Value(id NodeID) (V, error)
	Err() error
}

// Eval computes op's output at the values x without a tape: the one way every
// package evaluates an op for its plain functions (elementwise.Exp(x) is
// Eval(ExpOp, x)). The rule that Apply returns is dropped.
func Eval[V any](op Op[V], x ...V) (V, error) {
	y, _, err := op.Apply(make([]NodeID, len(x)), x)
	return y, err
}

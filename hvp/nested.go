package hvp

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// FuncN is a function of tensors with any number of outputs: it records its
// computation on t from the NodeIDs of its inputs and returns the NodeIDs of its
// outputs. GradOf returns one.
type FuncN func(t *Tape, x []cr.NodeID) []cr.NodeID

// ErrNested: a value-level transform (Grad, HVP, ...) was called while a function
// was being recorded for another transform on the same goroutine. Its result would
// enter the outer recording as a constant, whose derivative is zero: a silently
// wrong answer. Nest the composable forms instead (GradOf, JVPOf), which record on
// the caller's tape. It wraps chainrules.ErrInvalidArgument.
var ErrNested = fmt.Errorf("%w: a transform was called inside a function being recorded by another; "+
	"its result would be a constant there (derivative zero): use hvp.GradOf(f)(t, x) or hvp.JVPOf(f)(t, x, v), "+
	"which record on the caller's tape", cr.ErrInvalidArgument)

// GradOf returns the gradient of a scalar f as a function that records on the
// caller's tape, the composable form of Grad (JAX's grad, PyTorch's create_graph):
// GradOf(f)(t, x) records f at x and the reverse sweep of that recording
// (core.Tape.GradGraph), and returns one node per input holding df/dx_k. The
// nodes are ordinary ones: the gradient can be used in further computation and
// differentiated again, by any transform, so transforms nest:
//
//	penalty := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { // |grad f(x)|^2
//		return hvp.Inner(t, hvp.GradOf(f)(t, x), hvp.GradOf(f)(t, x))
//	}
//	_, g, err := hvp.Grad(penalty, x) // 2 H grad f, through a recorded gradient
//
// (the whole program is GradOf's example).
// Each x_k is an independent variable of f (the partial derivative, also when one
// input was computed from another). An error (an op without a recorded pullback,
// chainrules.ErrOrderNotSupported, or a non-scalar output) becomes t's sticky error,
// under the name "grad", and the nodes returned are zero NodeIDs.
func GradOf(f Func) FuncN {
	return func(t *Tape, x []cr.NodeID) []cr.NodeID {
		xi := independent(t, x)
		y := f(t, xi)
		if t.Err() != nil {
			return make([]cr.NodeID, len(x))
		}
		g, err := t.GradGraph(y, xi...)
		if err != nil {
			return failNodes(t, "grad", err, len(x))
		}
		return g
	}
}

// JVPOf returns the Jacobian-vector product of f as a function that records on the
// caller's tape: JVPOf(f)(t, x, v) records f at x and returns a node holding
//
//	ydot = sum_k J_k v_k = d/de f(x + e v) at e = 0,
//
// for directions v shaped like x (nodes too, so they may depend on leaves). It
// transposes a recorded vector-Jacobian product (the double-VJP construction: with
// g(u) = J^* u recorded for a dummy cotangent u, J v is the gradient of <g(u), v>
// in u), so it needs recorded pullbacks one level deeper than GradOf; u is
// recorded as a leaf of t (so JVPOf cannot run inside a composite op's body, which
// records none). Errors become t's sticky error under the name "jvp".
func JVPOf(f Func) func(t *Tape, x, v []cr.NodeID) cr.NodeID {
	return func(t *Tape, x, v []cr.NodeID) cr.NodeID {
		if len(v) != len(x) {
			return failNodes(t, "jvp", cr.Errorf(cr.ErrInvalidArgument, "%d directions for %d inputs", len(v), len(x)), 1)[0]
		}
		xi := independent(t, x)
		y := f(t, xi)
		yv, err := t.Value(y)
		if err != nil {
			return failNodes(t, "jvp", err, 1)[0]
		}
		// The dummy cotangent is a leaf: the VJP's ops must keep its cotangent.
		u := t.Leaf(tensor.New(yv.DType(), yv.Shape()...))
		g, err := t.GradGraphSeed(y, u, xi...)
		if err != nil {
			return failNodes(t, "jvp", err, 1)[0]
		}
		jv, err := t.GradGraph(Inner(t, g, v), u)
		if err != nil {
			return failNodes(t, "jvp", err, 1)[0]
		}
		return jv[0]
	}
}

// Inner records the real inner product sum_k Re<a_k, b_k> = sum_k Re sum_i
// conj(a_k,i) b_k,i of two lists of nodes shaped alike, a scalar node: the
// contraction of a gradient with a direction in nested transforms. Nodes a_k that
// are zero NodeIDs count as zero.
func Inner(t *Tape, a, b []cr.NodeID) cr.NodeID {
	if len(a) != len(b) {
		return failNodes(t, "inner", cr.Errorf(cr.ErrInvalidArgument, "%d and %d nodes", len(a), len(b)), 1)[0]
	}
	var total cr.NodeID
	for k := range a {
		av, err := t.Value(a[k])
		if err != nil {
			return failNodes(t, "inner", fmt.Errorf("node %d: %w", k, err), 1)[0]
		}
		bv, err := t.Value(b[k])
		if err != nil {
			return failNodes(t, "inner", fmt.Errorf("node %d: %w", k, err), 1)[0]
		}
		ak := a[k]
		cplx := av.DType().IsComplex() || bv.DType().IsComplex()
		if cplx {
			ak = t.Apply(elementwise.ConjOp, ak)
		}
		p := t.Apply(elementwise.MulOp, ak, b[k])
		if cplx {
			p = t.Apply(elementwise.RealOp, p)
		}
		s := t.Apply(reduce.SumOp(nil, false), p)
		if total.Valid() {
			s = t.Apply(elementwise.AddOp, total, s)
		}
		total = s
	}
	if !total.Valid() {
		return t.Constant(tensor.New(tensor.Float64))
	}
	return total
}

// HVPRev is HVP by reverse over reverse: it records the gradient of f with
// GradOf's recorded sweep, then runs the reverse sweep of <grad f(x), v>, whose
// gradient is H v. It agrees with HVP (forward over reverse) to rounding and
// needs the recorded pullbacks of the ops f uses; HVP, which needs their
// second-order rules instead, is usually faster.
func HVPRev(f Func, x, v []*tensor.Dense) (grad, hv []*tensor.Dense, err error) {
	return defaults().HVPRev(f, x, v)
}

// HVPRev is the package-level HVPRev, recording with tr's registry.
func (tr Transforms) HVPRev(f Func, x, v []*tensor.Dense) (grad, hv []*tensor.Dense, err error) {
	if len(v) != len(x) {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.HVPRev: %d directions for %d inputs", len(v), len(x))
	}
	var g []cr.NodeID
	s := func(t *Tape, ids []cr.NodeID) cr.NodeID {
		g = GradOf(f)(t, ids)
		vs := make([]cr.NodeID, len(v))
		for k, vk := range v {
			vs[k] = t.Constant(vk)
		}
		return Inner(t, g, vs)
	}
	t, ids, out, err := tr.record(s, x)
	if err != nil {
		return nil, nil, fmt.Errorf("hvp.HVPRev: %w", err)
	}
	grad = make([]*tensor.Dense, len(g))
	for k, id := range g {
		if grad[k], err = t.Value(id); err != nil {
			return nil, nil, fmt.Errorf("hvp.HVPRev: %w", err)
		}
	}
	gs, err := t.Backward(out)
	if err != nil {
		return nil, nil, fmt.Errorf("hvp.HVPRev: %w", err)
	}
	hv = collect(gs, ids, x)
	t.Release(append(slices.Clone(grad), hv...)...)
	return grad, hv, nil
}

// DirectionalDerivatives returns the derivatives of a scalar f along v at x,
//
//	d^j/de^j f(x + e v) at e = 0,   j = 0, 1, ..., order
//
// (entry 0 is f(x)): Taylor coefficients times j!, for Halley-type root finders and
// Taylor integrators. With d_0 = f and d_j = <grad d_{j-1}, v>, it records d_1 to
// d_{order-2} by nested recorded gradients (core.Tape.GradGraph), and takes the last
// two from one forward-over-reverse sweep of d_{order-2}, as HVP does:
// d_{order-1} = <grad, v> and d_order = <H v, v>. So order 2 costs an HVP, and each
// order above it one recorded gradient more; order k needs recorded pullbacks k-2
// levels deep and the second-order rules of the ops they record. An order below 1
// is an error wrapping chainrules.ErrInvalidArgument.
func DirectionalDerivatives(f Func, x, v []*tensor.Dense, order int) ([]float64, error) {
	return defaults().DirectionalDerivatives(f, x, v, order)
}

// DirectionalDerivatives is the package-level DirectionalDerivatives, recording
// with tr's registry.
func (tr Transforms) DirectionalDerivatives(f Func, x, v []*tensor.Dense, order int) ([]float64, error) {
	const name = "hvp.DirectionalDerivatives"
	if order < 1 || order > 64 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: order %d (want 1 to 64)", name, order)
	}
	if len(v) != len(x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d directions for %d inputs", name, len(v), len(x))
	}
	var ds []cr.NodeID
	chain := func(t *Tape, ids []cr.NodeID) cr.NodeID {
		vs := make([]cr.NodeID, len(v))
		for k, vk := range v {
			vs[k] = t.Constant(vk)
		}
		d := f(t, ids)
		ds = append(ds, d)
		for range order - 2 {
			if t.Err() != nil {
				return 0
			}
			g, err := t.GradGraph(d, ids...)
			if err != nil {
				return failNodes(t, "grad", err, 1)[0]
			}
			d = Inner(t, g, vs)
			ds = append(ds, d)
		}
		return d
	}
	t, ids, last, err := tr.record(chain, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkScalarNode(t, ds[0]); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]float64, order+1)
	for j, d := range ds {
		dv, _ := t.Value(d)
		out[j] = scalarValue(dv)
	}
	// The derivatives are copied into out: the recording is released on the way out.
	defer t.Release()
	tan, err := t.ForwardTangents(seeds(ids, v))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if order == 1 {
		if d1, ok := tan.Of(last); ok {
			out[1] = scalarValue(d1)
		}
		return out, nil
	}
	g, hv, err := t.BackwardWithTangents(last, tan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	grad, h := collect(g, ids, x), collect(hv, ids, x)
	for k := range v {
		a, err := tensor.Space{}.Inner(v[k], grad[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b, err := tensor.Space{}.Inner(v[k], h[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[order-1] += a
		out[order] += b
	}
	return out, nil
}

// checkScalarNode requires the value at id to be a real scalar.
func checkScalarNode(t *Tape, id cr.NodeID) error {
	v, err := t.Value(id)
	if err != nil {
		return err
	}
	return checkScalar(v)
}

// independent returns a node of its own for each of x (an identity), so that a
// recorded sweep differentiates with respect to each as an independent variable.
func independent(t *Tape, x []cr.NodeID) []cr.NodeID {
	xi := make([]cr.NodeID, len(x))
	for k, id := range x {
		xi[k] = t.Apply(core.Identity[*tensor.Dense](), id)
	}
	return xi
}

// failNodes makes err t's sticky error, as the failure of an op named name, and
// returns n zero NodeIDs.
func failNodes(t *Tape, name string, err error, n int) []cr.NodeID {
	t.Apply(cr.FailOp[*tensor.Dense](name, err))
	return make([]cr.NodeID, n)
}

// recordingDepth counts the functions being recorded for value-level transforms,
// on all goroutines. While it is zero no goroutine is inside one, and a transform
// need not look at its stack.
var recordingDepth atomic.Int64

// enterRecording marks the start of a recording and returns the function that
// marks its end; it returns ErrNested if the calling goroutine is running a
// function another transform records (a frame of callRecorded is on its stack).
// The stack is read only while some recording is under way, on any goroutine:
// a transform called on its own, the common case, costs two atomic adds.
func enterRecording() (func(), error) {
	if recordingDepth.Load() != 0 && insideRecorded() {
		return func() {}, ErrNested
	}
	recordingDepth.Add(1)
	return func() { recordingDepth.Add(-1) }, nil
}

// callRecorded calls f on t with the leaves ids. Its frame marks the goroutine as
// running a function a transform records (insideRecorded).
//
//go:noinline
func callRecorded(f Func, t *Tape, ids []cr.NodeID) cr.NodeID { return f(t, ids) }

// callRecordedName is the name of callRecorded in stack frames.
var callRecordedName = runtime.FuncForPC(reflect.ValueOf(callRecorded).Pointer()).Name()

// insideRecorded reports whether a frame of callRecorded is on the calling
// goroutine's stack: whether it is inside a function a transform is recording.
// A function recorded on another goroutine is not on this stack, so concurrent
// transforms are not nested.
func insideRecorded() bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		if n == len(pcs) { // the stack may be deeper: read it whole
			pcs = make([]uintptr, 2*len(pcs))
			continue
		}
		frames := runtime.CallersFrames(pcs[:n])
		for {
			fr, more := frames.Next()
			if fr.Function == callRecordedName {
				return true
			}
			if !more {
				return false
			}
		}
	}
}

package hvp

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// Tape is the tape a Func records on.
type Tape = core.Tape[*tensor.Dense]

// Func is a function of tensors: it records its computation on t from the NodeIDs of
// its inputs (leaves of t, in the order the inputs were given) and returns the NodeID
// of its output. It may record constants (data) with t.Constant. Recording errors are
// sticky on the tape; a Func need not check them.
type Func func(t *Tape, x []cr.NodeID) cr.NodeID

// Transforms are the function transforms of this package bound to an op registry:
// every recording of a Func is made on a tape that resolves its ops through the
// registry (core.Tape.UseRegistry), so the overrides installed on it with
// SetOverride — custom gradients — take effect. The package-level functions (Grad,
// HVP, NewOperator, NewObjective, ...) are the Transforms of [ops.Default]; to keep a
// custom gradient local, install it on a registry from ops.New and use
// WithRegistry(reg).HVP and so on.
//
// The zero Transforms records on tapes without a registry: ops are applied as
// given, with no overrides. A Transforms is a small value, safe for concurrent use.
type Transforms struct {
	reg     *cr.Registry[*tensor.Dense]
	workers int // the Workers of the Operators it makes; see WithWorkers
}

// WithRegistry returns the transforms whose recordings resolve ops through reg. A
// nil reg means no registry (ops are applied as given).
func WithRegistry(reg *cr.Registry[*tensor.Dense]) Transforms { return Transforms{reg: reg} }

// defaults are the transforms of the package-level functions.
func defaults() Transforms { return WithRegistry(ops.Default()) }

// record runs f on a fresh tape whose leaves are x. Called from inside a function
// that another transform is recording on the same goroutine, it returns ErrNested.
func (tr Transforms) record(f Func, x []*tensor.Dense) (*Tape, []cr.NodeID, cr.NodeID, error) {
	leave, err := enterRecording()
	defer leave()
	if err != nil {
		return nil, nil, 0, err
	}
	t := core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(tr.reg)
	t.EnableRecycling()
	ids := make([]cr.NodeID, len(x))
	for i, xi := range x {
		if xi == nil {
			return nil, nil, 0, cr.Errorf(cr.ErrInvalidArgument, "hvp: input %d is nil", i)
		}
		ids[i] = t.Leaf(xi)
	}
	out := callRecorded(f, t, ids)
	if err := t.Err(); err != nil {
		return nil, nil, 0, err
	}
	y, err := t.Value(out)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("hvp: the function's output: %w", err)
	}
	if err := checkPrecision(x, y); err != nil {
		return nil, nil, 0, err
	}
	return t, ids, out, nil
}

// checkPrecision refuses a double-precision output of f from a parameter set whose
// tensors are all single precision (float32 or complex64): f has mixed float64 data
// (a constant, an op parameter) into the computation, which would run in float64
// and hand back float32 derivatives rounded from it. The set of a mixed-precision
// computation converts one or the other with tensor.AsType. A set with a float64
// tensor follows tensor.PromoteTypes: its output may be float64.
func checkPrecision(x []*tensor.Dense, y *tensor.Dense) error {
	if len(x) == 0 || !y.DType().Valid() || y.DType().IsSingle() {
		return nil
	}
	for _, xk := range x {
		if !xk.DType().IsSingle() {
			return nil
		}
	}
	return cr.Errorf(cr.ErrInvalidArgument,
		"hvp: parameter 0 of the set is %s and every parameter is single precision, but f returned %s: f mixes %v data into a single-precision computation; convert its constants with tensor.AsType (or the parameters to %v)",
		x[0].Describe(), y.Describe(), y.DType(), y.DType())
}

// checkDirections refuses a direction (a tangent or HVP direction, the one of
// parameter k) whose precision is not its parameter's: a float64 direction for a
// float32 parameter, or the reverse. what names the transform. Nil directions and
// directions for nil parameters pass.
func checkDirections(what string, x, v []*tensor.Dense) error {
	for k, vk := range v {
		if vk == nil || k >= len(x) || x[k] == nil {
			continue
		}
		if vk.DType().IsSingle() != x[k].DType().IsSingle() {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: direction %d is %s, parameter %d is %s: convert it with tensor.AsType(v, %v)",
				what, k, vk.Describe(), k, x[k].Describe(), x[k].DType())
		}
	}
	return nil
}

// scalarValue returns the element of a real tensor of one element as a float64.
func scalarValue(v *tensor.Dense) float64 {
	if v.DType() == tensor.Float32 {
		return float64(v.Float32s()[0])
	}
	return v.Float64s()[0]
}

// collect returns the values of g at ids; a leaf that the output does not depend on
// has the zero derivative, shaped like its value.
func collect(g *core.Gradients[*tensor.Dense], ids []cr.NodeID, x []*tensor.Dense) []*tensor.Dense {
	// Room for one more: Grad and VJP append their value to release the tape.
	out := make([]*tensor.Dense, len(ids), len(ids)+1)
	for i, id := range ids {
		if v, ok := g.Of(id); ok {
			out[i] = v
		} else {
			out[i] = tensor.New(x[i].DType(), x[i].Shape()...)
		}
	}
	return out
}

// Grad returns f(x) and the gradient of a scalar f with respect to each input of
// the set x: grad_k = d f / d x_k (for complex inputs, PyTorch's convention: the
// adjoint of the JVP under Re<a, b>, so that f(x + e v) = f(x) + e Re<grad, v> +
// O(e^2)). A non-scalar or complex output is an error wrapping
// chainrules.ErrNonScalarLoss: a complex f has no gradient, so take its real part (as
// PyTorch and JAX require); VJP takes any cotangent. Like every transform of the
// package it takes the inputs as one slice, a parameter set. It records with the
// default registry; see Transforms.Grad.
func Grad(f Func, x []*tensor.Dense) (value *tensor.Dense, grad []*tensor.Dense, err error) {
	return defaults().Grad(f, x)
}

// Grad is the package-level Grad, recording with tr's registry.
func (tr Transforms) Grad(f Func, x []*tensor.Dense) (value *tensor.Dense, grad []*tensor.Dense, err error) {
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, nil, err
	}
	value, _ = t.Value(out)
	g, err := t.Backward(out)
	if err != nil {
		return nil, nil, err
	}
	grad = collect(g, ids, x)
	t.Release(append(grad, value)...)
	return value, grad, nil
}

// VJP returns y = f(x) and the vector-Jacobian products xbar_k = J_k^* ybar, where
// J_k is the Jacobian of y with respect to x_k and ybar is shaped like y. It records
// with the default registry; see Transforms.VJP.
func VJP(f Func, x []*tensor.Dense, ybar *tensor.Dense) (y *tensor.Dense, xbar []*tensor.Dense, err error) {
	return defaults().VJP(f, x, ybar)
}

// VJP is the package-level VJP, recording with tr's registry.
func (tr Transforms) VJP(f Func, x []*tensor.Dense, ybar *tensor.Dense) (y *tensor.Dense, xbar []*tensor.Dense, err error) {
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, nil, err
	}
	y, _ = t.Value(out)
	g, err := t.BackwardSeed(out, ybar)
	if err != nil {
		return nil, nil, err
	}
	xbar = collect(g, ids, x)
	t.Release(append(xbar, y)...)
	return y, xbar, nil
}

// JVP returns y = f(x) and the Jacobian-vector product ydot = sum_k J_k v_k, where v
// holds one tangent per input, shaped like it. It records with the default
// registry; see Transforms.JVP.
func JVP(f Func, x, v []*tensor.Dense) (y, ydot *tensor.Dense, err error) {
	return defaults().JVP(f, x, v)
}

// JVP is the package-level JVP, recording with tr's registry.
func (tr Transforms) JVP(f Func, x, v []*tensor.Dense) (y, ydot *tensor.Dense, err error) {
	if len(v) != len(x) {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.JVP: %d tangents for %d inputs", len(v), len(x))
	}
	if err := checkDirections("hvp.JVP", x, v); err != nil {
		return nil, nil, err
	}
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, nil, err
	}
	y, _ = t.Value(out)
	tan, err := t.ForwardTangents(seeds(ids, v))
	if err != nil {
		return nil, nil, err
	}
	if yd, ok := tan.Of(out); ok {
		ydot = yd
	} else {
		ydot = tensor.New(y.DType(), y.Shape()...)
	}
	t.Release(y, ydot)
	return y, ydot, nil
}

func seeds(ids []cr.NodeID, v []*tensor.Dense) map[cr.NodeID]*tensor.Dense {
	m := make(map[cr.NodeID]*tensor.Dense, len(ids))
	for i, id := range ids {
		if v[i] != nil {
			m[id] = v[i]
		}
	}
	return m
}

// HVP returns the gradient of a scalar f at x and the Hessian-vector product H v,
// where H is the Hessian of f with respect to all inputs together and v holds one
// direction per input:
//
//	(H v)_k = sum_j d^2 f / (dx_k dx_j) v_j.
//
// It is forward-over-reverse: one recording, one forward-tangent sweep and one
// second-order sweep. A nil direction is the zero direction; a non-scalar or complex
// output is an error wrapping chainrules.ErrNonScalarLoss (HVPSeed takes any output
// with a cotangent). It records with the default registry; see Transforms.HVP.
func HVP(f Func, x, v []*tensor.Dense) (grad, hv []*tensor.Dense, err error) {
	return defaults().HVP(f, x, v)
}

// HVP is the package-level HVP, recording with tr's registry.
func (tr Transforms) HVP(f Func, x, v []*tensor.Dense) (grad, hv []*tensor.Dense, err error) {
	op, err := tr.NewOperator(f, x)
	if err != nil {
		return nil, nil, err
	}
	hv, err = op.apply(v)
	if err != nil {
		return nil, nil, err
	}
	grad, err = op.Grad() // a by-product of Apply's second-order sweep
	if err != nil {
		return nil, nil, err
	}
	op.tape.Release(append(slices.Clone(grad), hv...)...)
	return grad, hv, nil
}

// HVPSeed is the Hessian-vector product of a function with any output: for y = f(x)
// and a cotangent ybar shaped like y, it returns y, the vector-Jacobian products xbar
// = J^* ybar (as VJP does) and the Hessian-vector product of the scalar
// Re<ybar, f(x)> along v,
//
//	hv_k = sum_j d^2 Re<ybar, f(x)> / (dx_k dx_j) v_j = d/de J_k(x + e v)^* ybar at e = 0,
//
// with one recording, one forward-tangent sweep and one second-order sweep seeded
// with ybar. For a scalar real f and ybar = 1 it is HVP. A nil direction is the zero
// direction. It records with the default registry; see Transforms.HVPSeed.
func HVPSeed(f Func, x, v []*tensor.Dense, ybar *tensor.Dense) (y *tensor.Dense, xbar, hv []*tensor.Dense, err error) {
	return defaults().HVPSeed(f, x, v, ybar)
}

// HVPSeed is the package-level HVPSeed, recording with tr's registry.
func (tr Transforms) HVPSeed(f Func, x, v []*tensor.Dense, ybar *tensor.Dense) (y *tensor.Dense, xbar, hv []*tensor.Dense, err error) {
	if len(v) != len(x) {
		return nil, nil, nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.HVPSeed: %d directions for %d inputs", len(v), len(x))
	}
	if ybar == nil {
		return nil, nil, nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.HVPSeed: the cotangent ybar is nil")
	}
	if err := checkDirections("hvp.HVPSeed", x, v); err != nil {
		return nil, nil, nil, err
	}
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, nil, nil, err
	}
	y, _ = t.Value(out)
	tan, err := t.ForwardTangentsFor(out, seeds(ids, v))
	if err != nil {
		return nil, nil, nil, err
	}
	g, gd, err := t.BackwardWithTangentsSeed(out, cr.Dual[*tensor.Dense]{Value: ybar}, tan)
	if err != nil {
		return nil, nil, nil, err
	}
	xbar, hv = collect(g, ids, x), collect(gd, ids, x)
	t.Release(append(append([]*tensor.Dense{y}, xbar...), hv...)...)
	return y, xbar, hv, nil
}

// Operator applies the Hessian of a scalar function at a fixed point to any number of
// vectors. It records f once; each Apply runs only the two sweeps. An Operator made
// by NewModelOperator also applies the Gauss-Newton matrix (GaussNewton). It is not
// safe for concurrent use: its methods run one at a time, and ApplyBatch spreads a
// batch of products over goroutines, each with a recording of its own.
type Operator struct {
	// Workers bounds the goroutines of ApplyBatch and ApplyBatchFlat (and of
	// Hessian): a batch of k products runs on min(k, Workers) of them, or on
	// min(k, GOMAXPROCS) when Workers <= 0 (the default of the package-level
	// constructors; Transforms.WithWorkers sets another). Workers = 1 runs a batch
	// on the calling goroutine and the Operator's tape only.
	Workers int

	tr    Transforms
	tape  *Tape
	ids   []cr.NodeID
	x     []*tensor.Dense
	out   cr.NodeID
	value *tensor.Dense
	grad  []*tensor.Dense // nil until a sweep has computed it

	layout    Layout // the layout of x, for the flat methods
	layoutErr error
	hasLayout bool

	// The split loss(model(x)) of NewModelOperator: y is the model's output and
	// lossOp the Hessian of the loss at y's value, recorded at the first GaussNewton.
	split  bool
	y      cr.NodeID
	loss   Loss
	lossOp *Operator

	// remake records f at x again, for a batch worker; helpers[j] is the recording
	// of worker j+1, made at its first batch.
	remake  func() (*Operator, error)
	helpers []*Operator
}

// NewOperator records f at x. A non-scalar or complex output is an error wrapping
// chainrules.ErrNonScalarLoss (for a complex f, differentiate its real part). It
// records with the default registry; see Transforms.NewOperator.
func NewOperator(f Func, x []*tensor.Dense) (*Operator, error) {
	return defaults().NewOperator(f, x)
}

// NewOperator is the package-level NewOperator, recording with tr's registry.
func (tr Transforms) NewOperator(f Func, x []*tensor.Dense) (*Operator, error) {
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, err
	}
	value, _ := t.Value(out)
	if err := checkScalar(value); err != nil {
		return nil, err
	}
	op := &Operator{Workers: tr.workers, tr: tr, tape: t, ids: ids, x: x, out: out, value: value}
	xs := slices.Clone(x) // the point of this recording, whatever the caller does with x
	op.remake = func() (*Operator, error) { return tr.NewOperator(f, xs) }
	return op, nil
}

func checkScalar(value *tensor.Dense) error {
	if value.Size() != 1 {
		return &cr.OpError{Op: "hvp", Phase: "record", Err: cr.Errorf(cr.ErrNonScalarLoss, "f returned %s", value.Describe())}
	}
	if value.DType().IsComplex() {
		return &cr.OpError{Op: "hvp", Phase: "record", Err: cr.Errorf(cr.ErrNonScalarLoss,
			"f returned %s: a complex loss has no gradient or Hessian; take its real part", value.Describe())}
	}
	return nil
}

// Value returns f(x).
func (o *Operator) Value() *tensor.Dense { return o.value }

// Grad returns the gradient of f at x, one tensor per input. After an Apply it is
// free (the second-order sweep computes it on the way); otherwise it runs one reverse
// sweep, once.
func (o *Operator) Grad() ([]*tensor.Dense, error) {
	if o.grad == nil {
		g, err := o.tape.Backward(o.out)
		if err != nil {
			return nil, err
		}
		o.grad = collect(g, o.ids, o.x)
		o.tape.RecycleSweeps(o.grad...)
	}
	return o.grad, nil
}

// Apply returns H v, one tensor per input; v holds one direction per input (nil
// means zero).
func (o *Operator) Apply(v []*tensor.Dense) ([]*tensor.Dense, error) {
	hv, err := o.apply(v)
	if err != nil {
		return nil, err
	}
	// The sweeps' temporaries go back to the pool for the next product.
	o.tape.RecycleSweeps(append(hv, o.grad...)...)
	return hv, nil
}

// apply is Apply without handing the sweeps' temporaries back.
func (o *Operator) apply(v []*tensor.Dense) ([]*tensor.Dense, error) {
	if len(v) != len(o.ids) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp: %d directions for %d inputs", len(v), len(o.ids))
	}
	if err := checkDirections("hvp", o.x, v); err != nil {
		return nil, err
	}
	// Only the tangents the second-order sweep reads (core.Tape.ForwardTangentsFor).
	tan, err := o.tape.ForwardTangentsFor(o.out, seeds(o.ids, v))
	if err != nil {
		return nil, err
	}
	grad, hv, err := o.tape.BackwardWithTangents(o.out, tan)
	if err != nil {
		return nil, err
	}
	if o.grad == nil {
		o.grad = collect(grad, o.ids, o.x)
	}
	return collect(hv, o.ids, o.x), nil
}

// release frees the operator's recordings (its own, its batch workers' and its
// loss operator's) and hands their storage back for reuse; nothing may use the
// operator, or any tensor it returned, afterwards.
func (o *Operator) release() {
	o.tape.Release()
	for _, h := range o.helpers {
		if h != nil {
			h.release()
		}
	}
	if o.lossOp != nil {
		o.lossOp.release()
	}
}

// Layout returns the layout of the operator's inputs, for its flat methods; complex
// inputs are an error.
func (o *Operator) Layout() (Layout, error) {
	if !o.hasLayout {
		o.layout, o.layoutErr = LayoutOf(o.x)
		o.hasLayout = true
	}
	return o.layout, o.layoutErr
}

// ApplyFlat stores H v in dst, with v and dst in the flat view of the inputs' Layout
// (one slice of length Layout().Dim(), as a Krylov solver or gonum wants): v is not
// copied (its float32 tensors excepted, which are rounded copies: see Layout.Views),
// and dst must not overlap it.
func (o *Operator) ApplyFlat(dst, v []float64) error {
	l, err := o.Layout()
	if err != nil {
		return err
	}
	// H v is in dst: its tensors go back too, then the direction's float32 copies.
	return flatApplyThen(l, dst, v, o.apply, func() { o.tape.RecycleSweeps(o.grad...) })
}

// GradFlat stores the gradient of f at x in dst, in the flat view of the inputs.
func (o *Operator) GradFlat(dst []float64) error {
	l, err := o.Layout()
	if err != nil {
		return err
	}
	g, err := o.Grad()
	if err != nil {
		return err
	}
	return l.FlattenTo(dst, g)
}

func (o *Operator) flat(dst, v []float64, apply func([]*tensor.Dense) ([]*tensor.Dense, error)) error {
	l, err := o.Layout()
	if err != nil {
		return err
	}
	return flatApply(l, dst, v, apply)
}

// flatApply stores apply(v) in dst, with v and dst in the flat view of layout l.
// apply must hand back its sweeps' storage before it returns (Operator.Apply and
// GaussNewton do): the tensors of v's float32 copies then go back to the pool.
func flatApply(l Layout, dst, v []float64, apply func([]*tensor.Dense) ([]*tensor.Dense, error)) error {
	return flatApplyThen(l, dst, v, apply, nil)
}

// flatApplyThen is flatApply for an apply whose sweeps' storage done hands back
// (Operator.apply's, for RecycleSweeps): done runs once H v is in dst (or apply
// failed), before v's float32 copies go back to the pool. On an error they are
// left to the garbage collector: the tape may still refer to them.
func flatApplyThen(l Layout, dst, v []float64, apply func([]*tensor.Dense) ([]*tensor.Dense, error), done func()) error {
	if len(dst) != l.Dim() {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp: destination of length %d for a set of %d elements", len(dst), l.Dim())
	}
	vs, copies, err := l.views(v)
	if err != nil {
		return err
	}
	hv, err := apply(vs)
	if err == nil {
		err = l.FlattenTo(dst, hv)
	}
	if done != nil {
		done()
	}
	if err != nil {
		return err
	}
	// Nothing refers to the copies any more: the sweeps that read them have
	// handed their storage back, and H v is in dst.
	tensor.Space{}.Recycle(copies, nil)
	return nil
}

// Hessian returns the dense Hessian of a scalar function of a real (float64 or
// float32) parameter set, in the flat view of its Layout: H_ij = d^2 f / (dz_i dz_j) for z the elements of x
// in row-major order, one tensor after another. It costs one recording and n
// Hessian-vector products H e_j, one per column, for n = LayoutOf(x).Dim(); the result
// is symmetrised, (H + H^T)/2, which changes it only by rounding. The columns are a
// batch (Operator.ApplyBatchFlat): they run on up to min(n, GOMAXPROCS) goroutines,
// each extra one with a recording of f of its own, so f must be safe to call from
// several goroutines at once; the result is bit-identical to the sequential loop,
// which WithWorkers(1).Hessian runs. Complex inputs are an error. It records with the
// default registry; see Transforms.Hessian.
func Hessian(f Func, x []*tensor.Dense) (*mat.SymDense, error) {
	return defaults().Hessian(f, x)
}

// Hessian is the package-level Hessian, recording with tr's registry.
func (tr Transforms) Hessian(f Func, x []*tensor.Dense) (*mat.SymDense, error) {
	l, err := nonEmptyLayout("hvp.Hessian", x)
	if err != nil {
		return nil, err
	}
	n := l.Dim()
	op, err := tr.NewOperator(f, x)
	if err != nil {
		return nil, err
	}
	cols, all := make([][]float64, n), make([]float64, n*n)
	for j := range cols {
		cols[j] = all[j*n : (j+1)*n : (j+1)*n]
	}
	units := make([][]float64, op.workerCount(n)) // each worker's e_j
	err = op.spread(n, func(wop *Operator, w, j int) error {
		if units[w] == nil {
			units[w] = make([]float64, n)
		}
		e := units[w]
		e[j] = 1
		err := flatApply(l, cols[j], e, wop.Apply)
		e[j] = 0
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("hvp.Hessian: %w", err)
	}
	return symmetrise(cols), nil
}

// nonEmptyLayout returns the layout of the real parameter set x, the rows and
// columns of the dense matrices of Hessian and Jacobian (the function named what):
// a complex or nil tensor, or a set with no elements, is an error.
func nonEmptyLayout(what string, x []*tensor.Dense) (Layout, error) {
	l, err := LayoutOf(x)
	if err != nil {
		return Layout{}, fmt.Errorf("%s: %w", what, err)
	}
	if l.Dim() == 0 {
		return Layout{}, cr.Errorf(cr.ErrInvalidArgument, "%s of an empty parameter set (layout %v)", what, l)
	}
	return l, nil
}

// symmetrise returns (C + C^T)/2 for the matrix whose columns are cols.
func symmetrise(cols [][]float64) *mat.SymDense {
	n := len(cols)
	h := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			h.SetSym(i, j, 0.5*(cols[j][i]+cols[i][j]))
		}
	}
	return h
}

// Jacobian returns the Jacobian of f at a real (float64 or float32) parameter set x, flattened in
// row-major order: J_ij = d y_i / d z_j, with m = y.Size() rows and one column per
// element z_j of the flat view of x (LayoutOf(x)). It uses n forward sweeps or m
// reverse sweeps, whichever is fewer, on one recording. Complex inputs or outputs are
// an error. It records with the default registry; see Transforms.Jacobian.
func Jacobian(f Func, x []*tensor.Dense) (*mat.Dense, error) {
	return defaults().Jacobian(f, x)
}

// Jacobian is the package-level Jacobian, recording with tr's registry.
func (tr Transforms) Jacobian(f Func, x []*tensor.Dense) (*mat.Dense, error) {
	l, err := nonEmptyLayout("hvp.Jacobian", x)
	if err != nil {
		return nil, err
	}
	t, ids, out, err := tr.record(f, x)
	if err != nil {
		return nil, err
	}
	y, _ := t.Value(out)
	if y.DType().IsComplex() {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.Jacobian needs a real (float64 or float32) output, got %v", y.DType())
	}
	m, n := y.Size(), l.Dim()
	if m == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.Jacobian of a function with an empty output (%s)", y.Describe())
	}
	jac := mat.NewDense(m, n, nil)
	if n <= m {
		e := make([]float64, n)
		for j := range n {
			e[j] = 1
			ej, _ := l.Views(e)
			tan, err := t.ForwardTangents(seeds(ids, ej))
			if err != nil {
				return nil, err
			}
			if yd, ok := tan.Of(out); ok {
				col, err := tensor.AsType(yd, tensor.Float64)
				if err != nil {
					return nil, err
				}
				jac.SetCol(j, col.Contiguous().Float64s()) // copies: yd may alias e
			}
			e[j] = 0
			t.RecycleSweeps() // the column is copied: the sweep's storage makes the next
		}
		t.Release()
		return jac, nil
	}
	row := make([]float64, n)
	for i := range m {
		e := make([]float64, m)
		e[i] = 1
		ei, _ := tensor.FromFloat64(e, y.Shape()...)
		ei, _ = tensor.AsType(ei, y.DType())
		g, err := t.BackwardSeed(out, ei)
		if err != nil {
			return nil, err
		}
		if err := l.FlattenTo(row, collect(g, ids, x)); err != nil {
			return nil, err
		}
		jac.SetRow(i, row)
		t.RecycleSweeps() // the row is copied: the sweep's storage makes the next
	}
	t.Release()
	return jac, nil
}

package hvp

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Objective adapts a scalar function of a parameter set to gonum's optimize
// package, whose functions take flat []float64 points: a point is the flat view of
// the set under the objective's Layout (NewObjective's one float64 tensor is the
// simplest set). Over a float32 layout, the objective converts at gonum's boundary:
// f, its gradient and its products run in float32 at the point rounded to float32,
// and are widened back into gonum's float64 slices (see the package's Precision
// section). An objective is a sum of shards, f(x) = sum_s f_s(x) (NewShardedObjective);
// NewObjective, NewParamObjective and NewModelObjective make one local shard, which
// the objective evaluates on the calling goroutine.
//
// gonum's callbacks cannot return errors, so a failing evaluation (an op error, a
// non-scalar or complex output, a shard's error, or a panic of a shard's code, which
// runs on goroutines the caller cannot recover on: a *PanicError) makes Func return
// NaN and Grad and Hess fill NaN, and keeps the first error for Err. The Problem's
// Status reports that error, so gonum stops at once with optimize.Failure and returns
// it (Minimize does the same for any optimize.Method). Destinations of the wrong
// length are the caller's bug: Grad and Hess panic, as gonum's own problems do, and
// HessVec returns an error.
//
// Evaluations at the same point share one recording (the two most recent points are
// kept): Grad after Func at the same x runs only the reverse sweep, and the HVPs at a
// point reuse its tape. The counters report the work, counted once per point whatever
// the number of shards. An Objective is safe for concurrent use (its evaluations are
// serialised; the shards of one evaluation run in parallel).
type Objective struct {
	mu     sync.Mutex
	layout Layout
	shards []Shard
	bufs   [][]float64 // scratch for shards 1, 2, ...: their gradients and products
	fs     []float64   // their values
	errs   []error

	// The two most recent points, newest first, with what is known there.
	points [2]point

	err     error // the first evaluation error
	invalid error // a bad layout or shard list given to the constructor

	// Recordings, Gradients, HVPs and GaussNewtonProducts count the points at which f
	// was recorded (by every shard), the gradients computed (a reverse sweep each),
	// and the Hessian-vector and Gauss-Newton-vector products.
	Recordings, Gradients, HVPs, GaussNewtonProducts int
}

type point struct {
	x          []float64 // nil: unused
	f          float64
	g          []float64
	hasF, hasG bool
}

// NewObjective returns the objective x -> f(x) for x one tensor of the given shape. A
// shape with no elements, a negative dimension or more elements than an int counts
// makes every evaluation fail (Func returns NaN and Err reports ErrInvalidArgument).
// It records with the default registry; see Transforms.NewObjective.
func NewObjective(f Func, shape ...int) *Objective {
	return defaults().NewObjective(f, shape...)
}

// NewObjective is the package-level NewObjective, recording with tr's registry: its
// Func, Grad, Hess and HessVec (and so a NewtonCG given HessVec) all see the
// registry's overrides.
func (tr Transforms) NewObjective(f Func, shape ...int) *Objective {
	l, err := NewLayout(shape)
	if err != nil {
		return invalidObjective(fmt.Errorf("hvp.NewObjective: %w", err))
	}
	return tr.NewParamObjective(f, l)
}

// NewParamObjective returns the objective x -> f(x) over the parameter sets of
// layout l: f receives one leaf per tensor of the set, views of one copy of gonum's
// flat point taken when the point is new (the tensors are not copied out of it, nor
// the directions of HessVec), and the gradient and Hessian-vector products are
// flattened back into gonum's slices. (A float32 tensor of the set is a rounded copy
// instead of a view, and so is its part of a direction: see Layout.Views.) Build l
// with LayoutOf(params), start from l.Flatten(params) and read the result with
// l.Unflatten(res.X). A layout with no elements makes every evaluation fail. It records with the default registry; see Transforms.NewParamObjective.
func NewParamObjective(f Func, l Layout) *Objective {
	return defaults().NewParamObjective(f, l)
}

// NewParamObjective is the package-level NewParamObjective, recording with tr's
// registry.
func (tr Transforms) NewParamObjective(f Func, l Layout) *Objective {
	return NewShardedObjective(l, tr.NewShard(f, l))
}

// NewModelObjective returns the objective x -> loss(model(x)) over the parameter sets
// of layout l, which gives, besides the exact Hessian (HessVec), the Gauss-Newton
// products J^T H_L J v (GaussNewtonVec; see GaussNewton): a NewtonCG with Curvature
// GaussNewtonCurvature uses them. It records with the default registry; see
// Transforms.NewModelObjective.
func NewModelObjective(model Func, loss Loss, l Layout) *Objective {
	return defaults().NewModelObjective(model, loss, l)
}

// NewModelObjective is the package-level NewModelObjective, recording with tr's
// registry.
func (tr Transforms) NewModelObjective(model Func, loss Loss, l Layout) *Objective {
	return NewShardedObjective(l, tr.NewModelShard(model, loss, l))
}

// NewShardedObjective returns the objective x -> sum_s f_s(x) over the parameter sets
// of layout l, where f_s is shard s: values, gradients and Hessian-vector products are
// the sums of the shards', added in shard order. The shards of one evaluation run at
// once, on the calling goroutine and len(shards)-1 goroutines started for it, so that
// local shards (Transforms.NewShard), each recording on a tape of its own, use every
// core; a Shard may also evaluate its term elsewhere. The goroutines take the shards
// in order as they become free, so a goroutine that starts late (its core busy with
// another process) finds its shard taken by one that has finished, and the
// evaluation does not wait for it; the results do not depend on which goroutine
// evaluated which shard. Results differ from one shard's only
// by the order of summation. No shards, or a nil one, make every evaluation fail. A
// shard that panics fails the evaluation with a *PanicError that names it (wrapping
// chainrules.ErrInvalidArgument), whichever goroutine it ran on.
func NewShardedObjective(l Layout, shards ...Shard) *Objective {
	if len(shards) == 0 {
		return invalidObjective(cr.Errorf(cr.ErrInvalidArgument, "hvp.NewShardedObjective: no shards"))
	}
	if i := slices.Index(shards, nil); i >= 0 {
		return invalidObjective(cr.Errorf(cr.ErrInvalidArgument, "hvp.NewShardedObjective: shard %d is nil", i))
	}
	o := &Objective{layout: l, shards: slices.Clone(shards)}
	if l.Dim() == 0 {
		o.invalid = cr.Errorf(cr.ErrInvalidArgument, "hvp: the layout %v has no elements", l)
		return o
	}
	n := len(shards)
	o.bufs, o.fs, o.errs = make([][]float64, n), make([]float64, n), make([]error, n)
	for s := 1; s < n; s++ {
		o.bufs[s] = make([]float64, l.Dim())
	}
	return o
}

func invalidObjective(err error) *Objective { return &Objective{invalid: err} }

// Err returns the first error met while evaluating.
func (o *Objective) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// ClearErr forgets the evaluation error, so that the objective can be used in a new
// optimisation (while Err is set, the Problem's Status fails every one).
func (o *Objective) ClearErr() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.err = nil
}

// Dim returns the number of variables (0 for an invalid objective).
func (o *Objective) Dim() int {
	if o.invalid != nil {
		return 0
	}
	return o.layout.Dim()
}

// Layout returns the layout of the objective's parameter sets.
func (o *Objective) Layout() Layout { return o.layout }

// Shards returns the number of shards.
func (o *Objective) Shards() int { return len(o.shards) }

func (o *Objective) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// at returns the cached point x, making it the newest; a new point evicts the older
// one and counts as a recording.
func (o *Objective) at(x []float64) (*point, error) {
	if o.invalid != nil {
		return nil, o.invalid
	}
	if len(x) != o.layout.Dim() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.Objective: point of length %d, want %d", len(x), o.layout.Dim())
	}
	for i := range o.points {
		if o.points[i].x != nil && slices.Equal(o.points[i].x, x) {
			o.points[0], o.points[i] = o.points[i], o.points[0]
			return &o.points[0], nil
		}
	}
	o.points[1], o.points[0] = o.points[0], o.points[1]
	p := &o.points[0]
	p.x = append(p.x[:0], x...)
	p.hasF, p.hasG = false, false
	o.Recordings++
	return p, nil
}

// cached returns the value and a copy of the gradient known at x, without
// evaluating: NaN and nil for what is not known.
func (o *Objective) cached(x []float64) (f float64, g []float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f = math.NaN()
	for i := range o.points {
		if p := &o.points[i]; p.x != nil && slices.Equal(p.x, x) {
			if p.hasF {
				f = p.f
			}
			if p.hasG {
				g = slices.Clone(p.g)
			}
			break
		}
	}
	return f, g
}

// forget drops a point whose evaluation failed.
func (p *point) forget() { p.x, p.hasF, p.hasG = nil, false, false }

// each calls fn for every shard and returns the error of the first shard (in shard
// order) that failed. The shards go out in increasing order, from a shared counter,
// to the calling goroutine and to len(shards)-1 goroutines started for the call,
// whichever is free: every shard starts at once when the goroutines do, and one
// whose goroutine has not started yet (its core busy with another process) is taken
// by a goroutine that has finished its own, so each waits for the shards under way
// but never for a goroutine that has not started (that one finds no shard left and
// ends). Which goroutine evaluates a shard does not change the results: shard s
// writes only its own slots (fs[s], errs[s], and its vector, dst for shard 0 and
// bufs[s] otherwise), which the callers add in shard order. A shard that panics
// fails with a *PanicError that names it, on every goroutine alike: the caller is
// itself often a goroutine of gonum's, and a panic must not leave shards writing
// into the objective's buffers after each has returned.
func (o *Objective) each(fn func(s int) error) error {
	n := len(o.shards)
	if n == 1 {
		return protect(0, fn)
	}
	forEachClaimed(n, n, func(_, s int) { o.errs[s] = protect(s, fn) })
	for s, err := range o.errs {
		if err != nil {
			if pe, ok := err.(*PanicError); ok && pe.Shard == s {
				return err // protect's, which names the shard
			}
			return fmt.Errorf("hvp: shard %d: %w", s, err)
		}
	}
	return nil
}

// protect returns fn(s), or the panic of fn as a *PanicError naming shard s.
func protect(s int, fn func(s int) error) (err error) {
	defer func() {
		if p := recovered(recover(), fmt.Sprintf("shard %d", s), s); p != nil {
			err = p
		}
	}()
	return fn(s)
}

// dst returns where shard s writes a vector: dst itself for shard 0, its scratch
// otherwise.
func (o *Objective) dst(s int, dst []float64) []float64 {
	if s == 0 {
		return dst
	}
	return o.bufs[s]
}

// sumInto adds the scratch vectors of shards 1, 2, ... into dst, in shard order.
func (o *Objective) sumInto(dst []float64) {
	for s := 1; s < len(o.shards); s++ {
		for i, v := range o.bufs[s] {
			dst[i] += v
		}
	}
}

// eval evaluates f, and the gradient if withGrad, at the point p.
func (o *Objective) eval(p *point, withGrad bool) error {
	var g []float64
	if withGrad {
		if len(p.g) != len(p.x) {
			p.g = make([]float64, len(p.x))
		}
		g = p.g
	}
	err := o.each(func(s int) error {
		var gs []float64
		if g != nil {
			gs = o.dst(s, g)
		}
		f, err := o.shards[s].Eval(p.x, gs)
		o.fs[s] = f
		return err
	})
	if err != nil {
		p.forget()
		return err
	}
	f := 0.0
	for _, fs := range o.fs {
		f += fs
	}
	p.f, p.hasF = f, true
	if withGrad {
		o.sumInto(g)
		p.hasG = true
		o.Gradients++
	}
	return nil
}

// Func returns f(x), or NaN on error.
func (o *Objective) Func(x []float64) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.evaluated(x, false)
	if err != nil {
		return math.NaN()
	}
	return p.f
}

// evaluated returns the point x with its value, and its gradient if withGrad,
// evaluated if they were not yet; an error is kept for Err.
func (o *Objective) evaluated(x []float64, withGrad bool) (*point, error) {
	p, err := o.at(x)
	if err == nil && (!p.hasF || withGrad && !p.hasG) {
		err = o.eval(p, withGrad)
	}
	if err != nil {
		o.fail(err)
	}
	return p, err
}

// Grad stores the gradient of f at x in grad, or NaNs on error. Like gonum's own
// problems it panics if len(grad) != len(x).
func (o *Objective) Grad(grad, x []float64) {
	if len(grad) != len(x) {
		panic(fmt.Sprintf("hvp: Objective.Grad: gradient of length %d for a point of length %d", len(grad), len(x)))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p, err := o.evaluated(x, true)
	if err != nil {
		fillNaN(grad)
		return
	}
	copy(grad, p.g)
}

func fillNaN(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

// HessVec stores H(x) v in dst: one Hessian-vector product (per shard), reusing the
// recording at x. dst, x and v must have length Dim (an error wrapping
// ErrShapeMismatch otherwise), and a product that is not finite is an error wrapping
// chainrules.ErrNonFinite. An error is also kept for Err, so that the Problem's
// Status stops gonum.
func (o *Objective) HessVec(dst, x, v []float64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.product(dst, x, v, "Hessian", &o.HVPs, func(s Shard, dst, x, v []float64) error { return s.HessVec(dst, x, v) })
}

// GaussNewtonVec stores the Gauss-Newton product G(x) v = J^T H_L J v in dst (see
// GaussNewton), summed over the shards, each of which must be a GaussNewtonShard (as
// the local shards of NewModelObjective and Transforms.NewModelShard are; an error
// wrapping chainrules.ErrInvalidArgument otherwise). Lengths, non-finite products and
// errors are handled as by HessVec.
func (o *Objective) GaussNewtonVec(dst, x, v []float64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.product(dst, x, v, "Gauss-Newton", &o.GaussNewtonProducts, func(s Shard, dst, x, v []float64) error {
		gs, ok := s.(GaussNewtonShard)
		if !ok {
			return cr.Errorf(cr.ErrInvalidArgument, "hvp: the shard (%T) gives no Gauss-Newton products: make the objective from a model and a loss", s)
		}
		return gs.GaussNewtonVec(dst, x, v)
	})
}

func (o *Objective) product(dst, x, v []float64, what string, count *int, apply func(s Shard, dst, x, v []float64) error) error {
	if len(dst) != len(x) || len(v) != len(x) {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp.Objective: dst of length %d and direction of length %d for a point of length %d",
			len(dst), len(v), len(x))
	}
	err := o.productAt(dst, x, v, apply)
	if err == nil {
		*count++
		if i := slices.IndexFunc(dst, nonFinite); i >= 0 {
			err = cr.Errorf(cr.ErrNonFinite, "hvp.Objective: the %s-vector product is not finite (element %d is %v)", what, i, dst[i])
		}
	}
	if err != nil {
		o.fail(err)
	}
	return err
}

func (o *Objective) productAt(dst, x, v []float64, apply func(s Shard, dst, x, v []float64) error) error {
	p, err := o.at(x)
	if err != nil {
		return err
	}
	err = o.each(func(s int) error { return apply(o.shards[s], o.dst(s, dst), p.x, v) })
	if err != nil {
		return err
	}
	o.sumInto(dst)
	return nil
}

func nonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// Hess stores the dense Hessian at x in dst, built from n Hessian-vector products
// (for small n), or NaNs on error. Like gonum's own problems it panics if dst's
// dimension is not len(x).
func (o *Objective) Hess(dst *mat.SymDense, x []float64) {
	if d := dst.SymmetricDim(); d != len(x) {
		panic(fmt.Sprintf("hvp: Objective.Hess: Hessian of dimension %d for a point of length %d", d, len(x)))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(x)
	cols := make([][]float64, n)
	e := make([]float64, n)
	for j := range n {
		e[j] = 1
		cols[j] = make([]float64, n)
		err := o.product(cols[j], x, e, "Hessian", &o.HVPs, func(s Shard, dst, x, v []float64) error { return s.HessVec(dst, x, v) })
		if err != nil {
			for i := range n {
				for k := i; k < n; k++ {
					dst.SetSym(i, k, math.NaN())
				}
			}
			return
		}
		e[j] = 0
	}
	dst.CopySym(symmetrise(cols))
}

// Problem returns the optimize.Problem with Func, Grad, Hess and Status. Status
// reports the first evaluation error (optimize.Failure and Err), so that gonum stops
// after the evaluation that failed and returns the error.
func (o *Objective) Problem() optimize.Problem {
	return optimize.Problem{Func: o.Func, Grad: o.Grad, Hess: o.Hess, Status: o.status}
}

func (o *Objective) status() (optimize.Status, error) {
	if err := o.Err(); err != nil {
		return optimize.Failure, err
	}
	return optimize.NotTerminated, nil
}

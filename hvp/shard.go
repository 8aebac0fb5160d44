package hvp

import (
	"fmt"
	"runtime/debug"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Shard is one term f_s of an objective that is a sum, f(x) = sum_s f_s(x) — a loss
// summed over the shards of a dataset — evaluated wherever the implementation likes:
// a LocalShard records its term on a tape of its own, and another implementation may
// send x to another process or machine (RPC, a cluster) and return what comes back.
//
// x, grad, v and dst are flat views of parameter sets (see Layout), all of the
// objective's Dim. A Shard must not keep or modify x or v after returning. The
// Objective calls each shard from one goroutine at a time, and all its shards at
// once, with the same x (a shard whose goroutine starts late is called by another
// goroutine once that one's shard has returned; see NewShardedObjective).
type Shard interface {
	// Eval returns f_s(x) and, if grad is not nil, stores the gradient of f_s at x
	// in grad.
	Eval(x, grad []float64) (float64, error)
	// HessVec stores H_s(x) v in dst, where H_s is the Hessian of f_s.
	HessVec(dst, x, v []float64) error
}

// GaussNewtonShard is a Shard of the form loss_s(model(x)) that also gives
// Gauss-Newton products G_s(x) v = J^T H_L J v (see GaussNewton).
type GaussNewtonShard interface {
	Shard
	GaussNewtonVec(dst, x, v []float64) error
}

// LocalShard is a Shard evaluated in this process: it records its function on a tape
// of its own at each new point (keeping the two most recent recordings), so that the
// gradient and the products at a point reuse one recording. A LocalShard is not safe
// for concurrent use; an Objective calls it from one goroutine at a time.
type LocalShard struct {
	tr     Transforms
	f      Func
	model  Func // with loss, the split of NewModelShard
	loss   Loss
	layout Layout
	cache  [2]recording
}

type recording struct {
	x  []float64
	op *Operator
}

var _ GaussNewtonShard = (*LocalShard)(nil)

// NewShard returns the local shard x -> f(x) over the parameter sets of layout l;
// f's data (the shard's rows of a dataset) are constants it records. It records with
// tr's registry.
func (tr Transforms) NewShard(f Func, l Layout) *LocalShard {
	return &LocalShard{tr: tr, f: f, layout: l}
}

// NewModelShard returns the local shard x -> loss(model(x)) over the parameter sets
// of layout l, which also gives Gauss-Newton products. It records with tr's registry.
func (tr Transforms) NewModelShard(model Func, loss Loss, l Layout) *LocalShard {
	return &LocalShard{tr: tr, model: model, loss: loss, layout: l}
}

// NewShard is Transforms.NewShard with the default registry.
func NewShard(f Func, l Layout) *LocalShard { return defaults().NewShard(f, l) }

// NewModelShard is Transforms.NewModelShard with the default registry.
func NewModelShard(model Func, loss Loss, l Layout) *LocalShard {
	return defaults().NewModelShard(model, loss, l)
}

// at returns the recording at x, reusing a cached one if x was seen last or second
// to last. The leaves are views of one copy of x.
func (s *LocalShard) at(x []float64) (*Operator, error) {
	for i, c := range s.cache {
		if c.op != nil && slices.Equal(c.x, x) {
			s.cache[0], s.cache[i] = s.cache[i], s.cache[0]
			return c.op, nil
		}
	}
	if s.f == nil && (s.model == nil || s.loss == nil) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp: the shard has no function")
	}
	xs := slices.Clone(x)
	leaves, err := s.layout.Views(xs)
	if err != nil {
		return nil, err
	}
	var op *Operator
	if s.f != nil {
		op, err = s.tr.NewOperator(s.f, leaves)
	} else {
		op, err = s.tr.NewModelOperator(s.model, s.loss, leaves)
	}
	if err != nil {
		return nil, err
	}
	op.layout, op.hasLayout = s.layout, true
	if old := s.cache[1].op; old != nil {
		old.release() // its storage makes the new recording's values
	}
	s.cache[1] = s.cache[0]
	s.cache[0] = recording{x: xs, op: op}
	return op, nil
}

// Eval implements Shard.
func (s *LocalShard) Eval(x, grad []float64) (float64, error) {
	op, err := s.at(x)
	if err != nil {
		return 0, err
	}
	if grad != nil {
		if err := op.GradFlat(grad); err != nil {
			return 0, err
		}
	}
	return scalarValue(op.value), nil
}

// HessVec implements Shard.
func (s *LocalShard) HessVec(dst, x, v []float64) error {
	op, err := s.at(x)
	if err != nil {
		return err
	}
	return op.ApplyFlat(dst, v)
}

// GaussNewtonVec implements GaussNewtonShard; a shard made by NewShard (no model and
// loss) returns an error wrapping chainrules.ErrInvalidArgument.
func (s *LocalShard) GaussNewtonVec(dst, x, v []float64) error {
	op, err := s.at(x)
	if err != nil {
		return err
	}
	return op.GaussNewtonFlat(dst, v)
}

// PanicError is a panic of the caller's code that hvp recovered where the caller
// could not: on a goroutine that hvp or gonum started. A shard's Eval, HessVec or
// GaussNewtonVec (a LocalShard's function or loss, which may index out of range like
// any user code) may run on a goroutine the Objective started when it has several
// shards, and on gonum's evaluation goroutine under optimize.Minimize and Minimize;
// a Newton method's HessVec, Err and Linesearcher run on gonum's method goroutine. A
// panic there would end the process, so the Objective returns it as the shard's
// error (Func returns NaN and Err reports it, as for any failed evaluation) and a
// Newton method stops with optimize.Failure and it.
//
// It wraps chainrules.ErrInvalidArgument — the code given to hvp is broken — and,
// when the panic's value is an error (a runtime.Error such as an index out of
// range), that error too, so that errors.Is and errors.As reach it.
type PanicError struct {
	// Where names the code that panicked: "shard 2", or the Newton method.
	Where string
	// Shard is the index of the shard that panicked, or -1 for a panic outside the
	// shards.
	Shard int
	// Value is the value the code panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, from where it recovered (it
	// holds the panic's origin).
	Stack []byte
}

// Error reads "invalid argument: hvp: shard 2 panicked: runtime error: index out of
// range [5] with length 3".
func (e *PanicError) Error() string {
	return fmt.Sprintf("%v: hvp: %s panicked: %v", cr.ErrInvalidArgument, e.Where, e.Value)
}

// Unwrap returns chainrules.ErrInvalidArgument and, if the panic's value is an
// error, that error.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{cr.ErrInvalidArgument, err}
	}
	return []error{cr.ErrInvalidArgument}
}

// recovered returns a *PanicError of p, recovered in the code that where names
// (shard s, or -1), or nil if p is nil; call it as recovered(recover(), ...) in a
// deferred function.
func recovered(p any, where string, shard int) error {
	if p == nil {
		return nil
	}
	return &PanicError{Where: where, Shard: shard, Value: p, Stack: debug.Stack()}
}

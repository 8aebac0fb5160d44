package hvp

import (
	"github.com/chainrules-go/chainrules/tensor"
)

// Gradient evaluates gradients, or gradients and Hessian-vector products, again
// and again, as a training loop or a Newton method does, and makes each
// evaluation in the memory of the one before: the recording, the cotangents (and
// their tangents) and the results themselves. Its Grad is hvp.Grad and its HVP is
// hvp.HVP, with one difference: the tensors they return stay valid only until the
// next call of Grad or HVP on the same Gradient, as the bytes of bufio.Scanner do.
// A caller that keeps a result past that copies it.
//
//	var g hvp.Gradient
//	for step := range steps {
//		loss, grads, err := g.Grad(f, params) // f may change from step to step (a minibatch)
//		...
//		opt.Step(grads) // optim reads grads and updates params: grads are then done with
//	}
//
// The zero value records with the default registry; Transforms.NewGradient makes
// one that records with another. A Gradient is not safe for concurrent use.
type Gradient struct {
	tr   *Transforms     // nil: the default registry
	last []*tensor.Dense // the previous call's results, handed back at the next
}

// NewGradient returns a Gradient that records with tr's registry.
func (tr Transforms) NewGradient() *Gradient { return &Gradient{tr: &tr} }

// Grad returns f(x) and the gradient of f at x, one tensor per input, as the
// function Grad does. The tensors it returned at the previous call are reused for
// this one (their storage goes back to the pool first, except any that overlaps x).
func (g *Gradient) Grad(f Func, x []*tensor.Dense) (value *tensor.Dense, grad []*tensor.Dense, err error) {
	g.recycle(x)
	value, grad, err = g.transforms().Grad(f, x)
	if err != nil {
		return nil, nil, err
	}
	g.last = append(append(g.last, grad...), value)
	return value, grad, nil
}

// HVP returns the gradient of a scalar f at x and the Hessian-vector product
//
//	(H v)_k = sum_j d^2 f / (dx_k dx_j) v_j,
//
// as the function HVP does (forward-over-reverse: one recording, one
// forward-tangent sweep, one second-order sweep). The tensors the previous call
// returned are reused for this one: their storage goes back to the pool first,
// except any that overlaps x or v, so a result of the previous call may be the
// next direction (v = H v, as the power method takes).
func (g *Gradient) HVP(f Func, x, v []*tensor.Dense) (grad, hv []*tensor.Dense, err error) {
	g.recycle(x, v...)
	grad, hv, err = g.transforms().HVP(f, x, v)
	if err != nil {
		return nil, nil, err
	}
	g.last = append(append(g.last, grad...), hv...)
	return grad, hv, nil
}

// recycle hands the storage of the previous call's results back to the pool,
// except any that overlaps x or more.
func (g *Gradient) recycle(x []*tensor.Dense, more ...*tensor.Dense) {
	if len(g.last) == 0 {
		return
	}
	live := x
	if len(more) != 0 {
		live = append(append(make([]*tensor.Dense, 0, len(x)+len(more)), x...), more...)
	}
	tensor.Space{}.Recycle(g.last, live)
	clear(g.last)
	g.last = g.last[:0]
}

// transforms returns the transforms g records with.
func (g *Gradient) transforms() Transforms {
	if g.tr != nil {
		return *g.tr
	}
	return defaults()
}

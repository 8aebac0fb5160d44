package hvp

import (
	"github.com/chainrules-go/chainrules/tensor"
)

// Gradient evaluates gradients again and again, as a training loop does, and
// makes each evaluation in the memory of the one before: the recording, the
// cotangents and the gradients themselves. Its Grad is hvp.Grad, with one
// difference: the tensors it returns stay valid only until the next call of Grad
// on the same Gradient, as the bytes of bufio.Scanner do. A caller that keeps a
// gradient past that copies it.
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
	if len(g.last) != 0 {
		tensor.Space{}.Recycle(g.last, x)
		clear(g.last)
		g.last = g.last[:0]
	}
	tr := defaults()
	if g.tr != nil {
		tr = *g.tr
	}
	value, grad, err = tr.Grad(f, x)
	if err != nil {
		return nil, nil, err
	}
	g.last = append(append(g.last, grad...), value)
	return value, grad, nil
}

package hvp

import (
	"github.com/chainrules-go/chainrules/tensor"
)

// Gradient evaluates a scalar function's value and gradient again and again, as
// a training loop does, and makes each evaluation in the memory of the one before:
// the recording, the cotangents and the gradients themselves. The price is that
// the tensors At returns stay valid only until the next call of At, as the bytes
// of bufio.Scanner do: a caller that keeps a gradient past that copies it.
//
//	g := hvp.NewGradient(loss)
//	for step := range steps {
//		_, grads, err := g.At(params)
//		...
//		opt.Step(grads) // optim updates params from grads, then grads are done with
//	}
//
// A Gradient is not safe for concurrent use.
type Gradient struct {
	tr   Transforms
	f    Func
	last []*tensor.Dense // the previous call's results, handed back at the next
}

// NewGradient returns a Gradient of f recording with the default registry; see
// Transforms.NewGradient.
func NewGradient(f Func) *Gradient { return defaults().NewGradient(f) }

// NewGradient returns a Gradient of f recording with tr's registry.
func (tr Transforms) NewGradient(f Func) *Gradient { return &Gradient{tr: tr, f: f} }

// At returns f(x) and the gradient of f at x, one tensor per input, as Grad does.
// The tensors it returned at the previous call are reused for this one (their
// storage goes back to the pool first, except any that overlaps x).
func (g *Gradient) At(x []*tensor.Dense) (value *tensor.Dense, grad []*tensor.Dense, err error) {
	if len(g.last) != 0 {
		tensor.Space{}.Recycle(g.last, x)
		clear(g.last)
		g.last = g.last[:0]
	}
	value, grad, err = g.tr.Grad(g.f, x)
	if err != nil {
		return nil, nil, err
	}
	g.last = append(append(g.last, grad...), value)
	return value, grad, nil
}

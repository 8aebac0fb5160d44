package hvp

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// Eval returns f(x), the value alone: f runs on a fresh tape in no-grad mode
// (core.Tape.NoGrad, PyTorch's torch.no_grad()), so no rule or residual is kept and
// nothing can be differentiated. It is the way to evaluate a loss or a model at a
// point — a validation loss, a prediction — without building a tape by hand; the
// output may have any shape. A function that differentiates inside (GradOf, JVPOf)
// needs gradients: evaluate it with Grad, or VJP for a non-scalar output. Called
// inside a function that another transform is recording, Eval is allowed (unlike
// Grad, it returns no derivative that the outer recording would see as a
// constant): its value is a constant there, as torch.no_grad() makes it. It records
// with the default registry; see Transforms.Eval.
func Eval(f Func, x []*tensor.Dense) (*tensor.Dense, error) {
	return defaults().Eval(f, x)
}

// Eval is the package-level Eval, recording with tr's registry.
func (tr Transforms) Eval(f Func, x []*tensor.Dense) (*tensor.Dense, error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(tr.reg)
	t.SetGradEnabled(false)
	ids := make([]cr.NodeID, len(x))
	for i, xi := range x {
		if xi == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp: input %d is nil", i)
		}
		ids[i] = t.Leaf(xi)
	}
	out := f(t, ids)
	if err := t.Err(); err != nil {
		return nil, err
	}
	y, err := t.Value(out)
	if err != nil {
		return nil, fmt.Errorf("hvp: the function's output: %w", err)
	}
	if err := checkPrecision(x, y); err != nil {
		return nil, err
	}
	return y, nil
}

package hvp

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"slices"
)

// Loss is the outer stage of an objective written as loss(model(x)): it records a
// scalar function of the model's output y on t, with its data (targets, labels) as
// constants or op parameters. The Gauss-Newton products (GaussNewton,
// Operator.GaussNewton, Objective.GaussNewtonVec) use the Hessian of the loss with
// respect to y, which is positive semi-definite when the loss is convex in y, as
// MSELoss, CrossEntropyLoss and BCEWithLogitsLoss are.
type Loss func(t *Tape, y cr.NodeID) cr.NodeID

// MSELoss is the mean squared error mean_i (y_i - target_i)^2 (package nn's
// mse_loss); the target broadcasts against y like nn.MSELossOp's.
func MSELoss(target *tensor.Dense) Loss {
	return func(t *Tape, y cr.NodeID) cr.NodeID {
		return t.Apply(nn.MSELossOp(), y, t.Constant(target))
	}
}

// CrossEntropyLoss is the mean cross-entropy of logits y ([N, C], or [C] for one
// sample) with integer class labels (package nn's cross_entropy); opts are nn's
// (label smoothing, class weights, ignored labels, reduction).
func CrossEntropyLoss(labels []int, opts ...nn.LossOption) Loss {
	op := nn.CrossEntropyOp(labels, opts...)
	return func(t *Tape, y cr.NodeID) cr.NodeID { return t.Apply(op, y) }
}

// BCEWithLogitsLoss is the mean binary cross-entropy of logits y with targets in [0,
// 1] of y's shape (package nn's binary_cross_entropy_with_logits): logistic
// regression's loss.
func BCEWithLogitsLoss(targets *tensor.Dense, opts ...nn.LossOption) Loss {
	op := nn.BCEWithLogitsOp(opts...)
	return func(t *Tape, y cr.NodeID) cr.NodeID { return t.Apply(op, y, t.Constant(targets)) }
}

// GaussNewton returns the gradient of the scalar loss(model(x)) and the
// Gauss-Newton-vector product
//
//	G v = J^T H_L J v,
//
// where J is the Jacobian of the model's output y = model(x) with respect to the
// parameter set x (all inputs together) and H_L the Hessian of the loss with respect
// to y. G drops the second-order terms of the model from the Hessian (H = G + sum_i
// dL/dy_i Hess y_i), so it is positive semi-definite whenever the loss is convex in y
// — least squares, cross-entropy — and Newton-CG with it never meets negative
// curvature. One product is a forward-tangent sweep of the model (J v), an HVP of the
// loss alone (H_L u, on a small tape of its own) and a reverse sweep of the model
// (J^T w). The model's output must be float64; v holds one direction per input (nil
// means zero). It records with the default registry; see Transforms.GaussNewton.
func GaussNewton(model Func, loss Loss, x, v []*tensor.Dense) (grad, gv []*tensor.Dense, err error) {
	return defaults().GaussNewton(model, loss, x, v)
}

// GaussNewton is the package-level GaussNewton, recording with tr's registry.
func (tr Transforms) GaussNewton(model Func, loss Loss, x, v []*tensor.Dense) (grad, gv []*tensor.Dense, err error) {
	op, err := tr.NewModelOperator(model, loss, x)
	if err != nil {
		return nil, nil, err
	}
	if gv, err = op.GaussNewton(v); err != nil {
		return nil, nil, err
	}
	grad, err = op.Grad()
	return grad, gv, err
}

// NewModelOperator records loss(model(x)) at x: the Operator's Apply is the exact
// Hessian of the composition and its GaussNewton the Gauss-Newton matrix. The model's
// output must be float64 and the loss's a real scalar. It records with the default
// registry; see Transforms.NewModelOperator.
func NewModelOperator(model Func, loss Loss, x []*tensor.Dense) (*Operator, error) {
	return defaults().NewModelOperator(model, loss, x)
}

// NewModelOperator is the package-level NewModelOperator, recording with tr's
// registry (the loss's Hessian too).
func (tr Transforms) NewModelOperator(model Func, loss Loss, x []*tensor.Dense) (*Operator, error) {
	if model == nil || loss == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewModelOperator: nil model or loss")
	}
	var y cr.NodeID
	op, err := tr.NewOperator(compose(model, loss, &y), x)
	if err != nil {
		return nil, err
	}
	yv, _ := op.tape.Value(y)
	if yv.DType().IsComplex() {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.NewModelOperator: the model's output is %s; Gauss-Newton needs a real (float64 or float32) one", yv.Describe())
	}
	op.split, op.y, op.loss = true, y, loss
	xs := slices.Clone(x) // the point of this recording, whatever the caller does with x
	op.remake = func() (*Operator, error) { return tr.NewModelOperator(model, loss, xs) }
	return op, nil
}

// compose returns x -> loss(model(x)), storing the model's output node in y.
func compose(model Func, loss Loss, y *cr.NodeID) Func {
	return func(t *Tape, x []cr.NodeID) cr.NodeID {
		*y = model(t, x)
		return loss(t, *y)
	}
}

// GaussNewton returns G v = J^T H_L J v (see the function GaussNewton), one tensor per
// input, for an Operator made by NewModelOperator; v holds one direction per input
// (nil means zero). The loss's Hessian is recorded at the first call and reused.
func (o *Operator) GaussNewton(v []*tensor.Dense) ([]*tensor.Dense, error) {
	if !o.split {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp: a Gauss-Newton product needs an operator made by NewModelOperator (a model and a loss)")
	}
	if len(v) != len(o.ids) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp: %d directions for %d inputs", len(v), len(o.ids))
	}
	if err := checkDirections("hvp: Gauss-Newton", o.x, v); err != nil {
		return nil, err
	}
	tan, err := o.tape.ForwardTangents(seeds(o.ids, v))
	if err != nil {
		return nil, err
	}
	u, ok := tan.Of(o.y)
	if !ok { // J v = 0
		return zerosLike(o.x), nil
	}
	if o.lossOp == nil {
		yv, _ := o.tape.Value(o.y)
		loss := o.loss
		o.lossOp, err = o.tr.NewOperator(func(t *Tape, y []cr.NodeID) cr.NodeID { return loss(t, y[0]) }, []*tensor.Dense{yv})
		if err != nil {
			return nil, err
		}
	}
	w, err := o.lossOp.Apply([]*tensor.Dense{u})
	if err != nil {
		return nil, err
	}
	g, err := o.tape.BackwardSeed(o.y, w[0])
	if err != nil {
		return nil, err
	}
	gv := collect(g, o.ids, o.x)
	// The sweeps' temporaries go back to the pool for the next product; the
	// operator's tape would otherwise keep them until the point changes.
	o.tape.RecycleSweeps(append(slices.Clone(gv), o.grad...)...)
	return gv, nil
}

// GaussNewtonFlat stores G v in dst, in the flat view of the inputs (see ApplyFlat).
func (o *Operator) GaussNewtonFlat(dst, v []float64) error { return o.flat(dst, v, o.GaussNewton) }

// zerosLike returns zero tensors shaped like x.
func zerosLike(x []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(x))
	for i, xi := range x {
		out[i] = tensor.New(xi.DType(), xi.Shape()...)
	}
	return out
}

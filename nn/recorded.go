package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Helpers of the recorded pullbacks (chainrules.PullbackRecorder) of the
// hand-written rules: softmax, log_softmax, the class losses, clamp_tensor, sort
// and topk. Each records its cotangents with registered ops, so that a recorded
// backward sweep (core.Tape.GradGraph) can differentiate them again; the
// hand-written Pullback and PullbackWithTangents stay the fast path of gradients
// and Hessian-vector products.

// recorder is the recorder of a tensor graph.
type recorder = cr.Recorder[*tensor.Dense]

// constantRecorder is a recorder that records constants (a core.Tape).
type constantRecorder interface {
	Constant(*tensor.Dense) cr.NodeID
}

// constant records v as a constant on r, or returns an error wrapping
// chainrules.ErrInvalidArgument when r records no constants.
func constant(r recorder, name string, v *tensor.Dense) (cr.NodeID, error) {
	c, ok := r.(constantRecorder)
	if !ok {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "%s: the recorded pullback needs constants, which a %T does not record", name, r)
	}
	return c.Constant(v), nil
}

// constantOf records the float64 tensor of the given elements and shape as a
// constant on r (see constant).
func constantOf(r recorder, name string, data []float64, shape []int) (cr.NodeID, error) {
	v, err := tensor.FromFloat64(data, shape...)
	if err != nil {
		return 0, err
	}
	return constant(r, name, v)
}

// recordSumTo records the sum of x (of shape from) over the axes that broadcasting
// a value of shape to onto from adds or stretches, so that the result has shape
// to; x itself when the shapes are equal. Sums and reshapes are linear, so the
// result is differentiable to every order.
func recordSumTo(r recorder, x cr.NodeID, from, to []int) cr.NodeID {
	if slices.Equal(from, to) {
		return x
	}
	lead := len(from) - len(to)
	var axes []int
	for k := range from {
		if k < lead || (to[k-lead] == 1 && from[k] != 1) {
			axes = append(axes, k)
		}
	}
	if len(axes) > 0 {
		x = r.Apply(reduce.SumOp(axes, true), x)
	}
	return r.Apply(permute.ReshapeOp(to...), x)
}

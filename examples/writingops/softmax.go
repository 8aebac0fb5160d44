package writingops

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// SoftmaxOp returns softmax(x) = exp(z) / sum(exp(z)) along axis, z = x - max(x), as
// a composite op: its pullback, forward tangent and second-order rule come from the
// recorded body, xbar = s (ybar - sum(s ybar)) with s = softmax(x). Package nn's
// SoftmaxOp computes the same function fused by hand, for speed.
func SoftmaxOp(axis int) cr.Op[*tensor.Dense] {
	return core.Composite("softmax", tensor.Space{}, 1, func(t *hvp.Tape, x []cr.NodeID) []cr.NodeID {
		e := t.Apply(elementwise.ExpOp, shifted(t, x[0], axis))
		return []cr.NodeID{t.Apply(elementwise.DivOp, e, t.Apply(reduce.SumOp([]int{axis}, true), e))}
	})
}

// shifted records x - max(x); the maximum carries no gradient (softmax is shift invariant).
func shifted(t *hvp.Tape, x cr.NodeID, axis int) cr.NodeID {
	var m cr.NodeID
	t.NoGrad(func() { m = t.Apply(reduce.MaxOp([]int{axis}, true), x) })
	return t.Apply(elementwise.SubOp, x, m)
}

// LogSoftmaxOp returns log_softmax(x) = z - log(sum(exp(z))) along axis, z = x - max(x),
// as a composite op: its pullback is xbar = ybar - softmax(x) sum(ybar). Package nn's
// LogSoftmaxOp computes the same function fused by hand, for speed.
func LogSoftmaxOp(axis int) cr.Op[*tensor.Dense] {
	return core.Composite("log_softmax", tensor.Space{}, 1, func(t *hvp.Tape, x []cr.NodeID) []cr.NodeID {
		z := shifted(t, x[0], axis)
		lse := t.Apply(elementwise.LogOp, t.Apply(reduce.SumOp([]int{axis}, true), t.Apply(elementwise.ExpOp, z)))
		return []cr.NodeID{t.Apply(elementwise.SubOp, z, lse)}
	})
}

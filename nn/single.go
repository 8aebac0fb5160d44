package nn

import (
	"fmt"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Single precision. Every op of the package takes float32 (and complex64 where it
// takes complex128) through opkit.ApplyWidened: the inputs are widened exactly, the
// op's double-precision kernels and rules run, and each result is rounded once to
// the inputs' precision (tensor.PromoteTypes: a float64 input next to a float32 one
// keeps the result float64, as in PyTorch). Cotangents and tangents are rounded to
// their input's dtype, and the recorded pullback is the double-precision one between
// recorded casts, so derivatives of every order stay in single precision. Each op's
// Apply (ApplyMasked, where it has one) starts with
//
//	if opkit.HasSingle(x) { return applySingle(o, in, x, y, need) }
//
// so that everything after it sees float64 and complex128 only.

// applySingle applies op to x, some of which is single precision, through
// opkit.ApplyWidened, passing need on to op's ApplyMasked (a nil need: every input).
// An error of the double-precision application, which names the widened dtypes,
// is wrapped with the dtypes given.
func applySingle(op cr.Op[*tensor.Dense], in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	r, err := opkit.ApplyWidened(maskedApply{Op: op, need: need}, in, x, y)
	if err != nil {
		dts := make([]string, len(x))
		for k, v := range x {
			dts[k] = opkit.DescribeOf(v)
		}
		return nil, fmt.Errorf("%w (%s given %s, computed in double precision)", err, op.Name(), strings.Join(dts, ", "))
	}
	return r, nil
}

// maskedApply is op whose Apply is its ApplyMasked with need fixed (op's Apply when
// need is nil or op is not a chainrules.MaskedOp): the op that opkit.ApplyWidened,
// which calls Apply, runs in double precision without losing the mask.
type maskedApply struct {
	cr.Op[*tensor.Dense]
	need []bool
}

func (o maskedApply) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if m, ok := o.Op.(cr.MaskedOp[*tensor.Dense]); ok && o.need != nil {
		return m.ApplyMasked(in, x, y, o.need)
	}
	return o.Op.Apply(in, x, y)
}

// withSingle returns op taking single precision too (applySingle), for the ops
// defined by core.Define or core.Composite with no input check of their own.
func withSingle(op cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return checkedOp{Op: op} }

// widened returns a tensor parameter of an op (a loss weight, running statistics,
// an attention mask) widened exactly to double precision when it is float32 or
// complex64, and t itself otherwise (nil included): the op's kernels read their
// parameters in double precision whatever the precision of the inputs.
func widened(t *tensor.Dense) *tensor.Dense {
	if t == nil || !t.DType().IsSingle() {
		return t
	}
	w, err := tensor.Space{}.Widen(t)
	if err != nil {
		panic(err) // Widen fails only on nil
	}
	return w
}

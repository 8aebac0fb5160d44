package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// gatherRule holds the rules shared by the ops whose first output is a selection
// of the input's elements and whose second is their indices (sort, topk, the max
// pools): values y = P x with y[i] = x[src[i]], P fixed away from ties, so
//
//	xbar = P^T ybar,   ydot = P xdot,   xbardot = P^T ybardot
//
// (the second-order term is zero) and the indices carry no derivative. The ops
// embed it and add RecordPullback, which records P^T with index ops.
type gatherRule[I int | int32] struct {
	name          string
	in            cr.NodeID
	shape, oshape []int // the input's and the values' shapes
	src           []I
	dt            tensor.DType // the values' dtype, float32 or float64 (the zero value)
}

// dtype returns the dtype of the values, and so of their derivatives.
func (r *gatherRule[I]) dtype() tensor.DType {
	if r.dt == tensor.Float32 {
		return r.dt
	}
	return tensor.Float64
}

func (r *gatherRule[I]) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// scatter returns P^T v: zeros shaped like x with v[i] added at src[i].
func (r *gatherRule[I]) scatter(v *tensor.Dense, what string) (*tensor.Dense, error) {
	dt := r.dtype()
	v = realAs(v, dt)
	if v == nil || v.DType() != dt || !slices.Equal(v.Shape(), r.oshape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s of the values is %s, the values are %s%v", r.name, what, describe(v), dt, r.oshape)
	}
	out := tensor.New(dt, r.shape...)
	if dt == tensor.Float32 {
		scatterAt(out.Float32s(), v.Contiguous().Float32s(), r.src)
	} else {
		scatterAt(out.Float64s(), float64s(v), r.src)
	}
	return out, nil
}

// scatterAt adds v[i] to d[src[i]].
func scatterAt[E floating, I int | int32](d, v []E, src []I) {
	for i, s := range v[:len(src)] {
		d[src[i]] += s
	}
}

// gatherAt returns v with v[i] = t[src[i]].
func gatherAt[E floating, I int | int32](t []E, src []I) []E {
	v := make([]E, len(src))
	for i, s := range src {
		v[i] = t[s]
	}
	return v
}

// Pullback appends xbar = P^T ybar (the indices never have a cotangent).
func (r *gatherRule[I]) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	if len(ybar) != 2 || len(has) != 2 {
		return dst, cr.Errorf(cr.ErrInvalidArgument, "%s: %d cotangents and %d flags for 2 outputs", r.name, len(ybar), len(has))
	}
	if !has[0] {
		return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: tensor.New(r.dtype(), r.shape...)}), nil
	}
	xbar, err := r.scatter(ybar[0], "cotangent")
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: xbar}), nil
}

// Forward sets ydot = P xdot.
func (r *gatherRule[I]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	if len(ydot) != 2 || len(has) != 2 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: %d tangent slots for 2 outputs", r.name, len(ydot))
	}
	t, ok := tangentOf(r.in)
	if !ok {
		return nil
	}
	dt := r.dtype()
	t = realAs(t, dt)
	if t == nil || t.DType() != dt || !slices.Equal(t.Shape(), r.shape) {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: tangent of the input is %s, the input is %s%v", r.name, describe(t), dt, r.shape)
	}
	if dt == tensor.Float32 {
		ydot[0] = denseOf(gatherAt(t.Contiguous().Float32s(), r.src), r.oshape)
	} else {
		ydot[0] = denseOf(gatherAt(float64s(t), r.src), r.oshape)
	}
	has[0] = true
	return nil
}

// PullbackWithTangents appends (P^T ybar, P^T ybardot): P does not depend on x
// away from ties, so the second-order term is zero.
func (r *gatherRule[I]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, has := a.Cotangents, a.Has
	if len(ct) != 2 || len(has) != 2 {
		return dst, cr.Errorf(cr.ErrInvalidArgument, "%s: %d cotangents and %d flags for 2 outputs", r.name, len(ct), len(has))
	}
	var d cr.Dual[*tensor.Dense]
	if !has[0] {
		d.Value = tensor.New(r.dtype(), r.shape...)
		return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
	}
	var err error
	if d.Value, err = r.scatter(ct[0].Value, "cotangent"); err != nil {
		return dst, err
	}
	if ct[0].HasTangent {
		if d.Tangent, err = r.scatter(ct[0].Tangent, "cotangent tangent"); err != nil {
			return dst, err
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

// FreshStorage marks the values, the indices and every derivative the rule returns
// as storage of their own (chainrules.FreshStorage), so that a released tape
// reuses it.
func (*gatherRule[I]) FreshStorage() {}

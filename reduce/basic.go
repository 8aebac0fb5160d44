package reduce

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// SumOp returns the op y = sum of x over axes: y[i, j] = sum_k x[i, k, j], where k
// runs over the reduced axes. Nil or empty axes reduce every axis; negative axes
// count from the end; keepdims keeps the reduced axes with size 1. It is defined for
// float64 and complex128; the sum of an empty slice is 0.
//
// Rules (linear): xbar[i, k, j] = ybar[i, j], ydot = Sum(xdot), xbardot = ybardot
// broadcast back.
func SumOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	return newOp("sum", axes, keepdims, linear{})
}

// Sum is SumOp without a tape.
func Sum(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(SumOp(axes, keepdims), x)
}

// MeanOp returns the op y = Sum(x) / n, with n the number of elements reduced into
// each output (NaN for an empty slice). Axes and keepdims are those of SumOp.
//
// Rules (linear): xbar = ybar / n broadcast back, ydot = Mean(xdot).
func MeanOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	return newOp("mean", axes, keepdims, linear{mean: true})
}

// Mean is MeanOp without a tape.
func Mean(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MeanOp(axes, keepdims), x)
}

// NanSumOp returns Sum with NaN elements counted as zero (float64 only).
//
// Rules: xbar = ybar where x is not NaN and 0 where it is; ydot sums xdot over the
// elements that are not NaN.
func NanSumOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("nansum", axes, keepdims, linear{nan: true})
	o.realOnly = true
	return o
}

// NanSum is NanSumOp without a tape.
func NanSum(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(NanSumOp(axes, keepdims), x)
}

// NanMeanOp returns the mean of the elements that are not NaN (float64 only): NanSum
// divided by their count c (NaN when c is 0).
//
// Rules: xbar = ybar / c where x is not NaN and 0 where it is.
func NanMeanOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("nanmean", axes, keepdims, linear{nan: true, mean: true})
	o.realOnly = true
	return o
}

// NanMean is NanMeanOp without a tape.
func NanMean(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(NanMeanOp(axes, keepdims), x)
}

// linear implements sum, mean, nansum and nanmean.
type linear struct{ mean, nan bool }

func (l linear) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	c := 1.0
	if l.mean {
		c = 1 / float64(p.r)
	}
	if x.DType() == tensor.Complex128 {
		y := scaledSum(p, elems[complex128](p.canonical(x)), c)
		return output(p, y), &linearRule{in: in, p: p, c: c, dt: tensor.Complex128}, nil
	}
	xs := elems[float64](p.canonical(x))
	if !l.nan {
		return output(p, scaledSum(p, xs, c)), &linearRule{in: in, p: p, c: c, dt: tensor.Float64}, nil
	}
	out := make([]float64, p.a*p.b)
	cnt := make([]float64, p.a*p.b)
	for i := range p.a {
		for k := range p.r {
			row := xs[(i*p.r+k)*p.b : (i*p.r+k+1)*p.b]
			for j, v := range row {
				if v == v {
					out[i*p.b+j] += v
					cnt[i*p.b+j]++
				}
			}
		}
	}
	r := &weighted[float64]{in: in, p: p, x: xs}
	if l.mean {
		for o := range out {
			out[o] /= cnt[o]
		}
		r.w = func(v float64, o int) float64 {
			if v != v {
				return 0
			}
			return 1 / cnt[o]
		}
	} else {
		r.w = func(v float64, _ int) float64 {
			if v != v {
				return 0
			}
			return 1
		}
	}
	return output(p, out), r, nil
}

// scaledSum returns c Sum(x) in the canonical layout.
func scaledSum[T elem](p *plan, xs []T, c float64) []T {
	out := sumKernel(xs, p.a, p.r, p.b)
	if c != 1 {
		cc := fromReal[T](c)
		for o := range out {
			out[o] *= cc
		}
	}
	return out
}

// linearRule is the rule of sum and mean, y = c Sum(x) with c = 1 or 1/n: the
// pullback broadcasts c ybar back over the reduced axes as a view with stride 0
// there (PyTorch's expand), so it costs no pass over the input's size; ydot =
// c Sum(xdot), and xbardot = c ybardot broadcast back.
type linearRule struct {
	in cr.NodeID
	p  *plan
	c  float64
	dt tensor.DType
}

func (r *linearRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// adjoint returns c g broadcast back to the input shape, in the input's dtype (a
// complex cotangent of a real input contributes its real part).
func (r *linearRule) adjoint(g *tensor.Dense) (*tensor.Dense, error) {
	switch {
	case r.dt == tensor.Complex128:
		g = g.AsComplex()
	case g.DType() == tensor.Complex128:
		g = g.Real()
	}
	if r.c != 1 {
		g = tensor.Scale(g, complex(r.c, 0))
	}
	return r.p.broadcastBack(g)
}

func (r *linearRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, err := r.adjoint(ybar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: xbar}), nil
}

// ForwardTangents returns ydot = c Sum(xdot).
func (r *linearRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xdot, ok := tangentOf(r.in)
	if !ok {
		return nil, false, nil
	}
	if r.dt == tensor.Complex128 {
		return output(r.p, scaledSum(r.p, elems[complex128](r.p.canonical(xdot)), r.c)), true, nil
	}
	if xdot.DType() == tensor.Complex128 {
		xdot = xdot.Real()
	}
	return output(r.p, scaledSum(r.p, elems[float64](r.p.canonical(xdot)), r.c)), true, nil
}

// PullbackWithTangents returns xbar = c ybar and xbardot = c ybardot, both broadcast
// back (the rule is linear: no term in xdot).
func (r *linearRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], _ cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	xbar, err := r.adjoint(ct.Value)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: xbar}
	if ct.HasTangent {
		if d.Tangent, err = r.adjoint(ct.Tangent); err != nil {
			return dst, err
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

// sumKernel returns out[i, j] = sum_k x[i, k, j].
func sumKernel[T elem](x []T, a, r, b int) []T {
	out := make([]T, a*b)
	for i := range a {
		base := i * r * b
		if b == 1 {
			out[i] = vmath.Sum(x[base : base+r])
			continue
		}
		acc := out[i*b : i*b+b]
		for k := range r {
			addTo(acc, x[base+k*b:base+k*b+b])
		}
	}
	return out
}

// addTo adds src into dst elementwise (same length).
func addTo[T elem](dst, src []T) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] += s[0]
		d[1] += s[1]
		d[2] += s[2]
		d[3] += s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// LogSumExpOp returns the op y[i, j] = log sum_k exp(x[i, k, j]) (float64 only),
// computed as m + log sum_k exp(x - m) with m the maximum of the slice, so that it
// neither overflows for large inputs nor underflows for very negative ones. An empty
// slice gives -Inf. Axes and keepdims are those of SumOp.
//
// Rules: with the softmax s = exp(x - y) (at most 1, so the rule is as stable as the
// primal), xbar = s ybar, ydot = sum_k s xdot, and
// xbardot = s ybardot + s (xdot - ydot) ybar.
func LogSumExpOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("logsumexp", axes, keepdims, logSumExp{})
	o.realOnly = true
	return o
}

// LogSumExp is LogSumExpOp without a tape.
func LogSumExp(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(LogSumExpOp(axes, keepdims), x)
}

type logSumExp struct{}

func (logSumExp) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	y := lseKernel(xs, p.a, p.r, p.b)
	return output(p, y), &lseRule{in: in, p: p, x: xs, y: y}, nil
}

// lseRule is the rule of logsumexp, in terms of the softmax s = exp(x - y).
type lseRule struct {
	in cr.NodeID
	p  *plan
	x  []float64 // input in canonical layout
	y  []float64 // output
}

func (r *lseRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// cotangent returns the real elements of the output-shaped cotangent g.
func (r *lseRule) cotangent(g *tensor.Dense) ([]float64, error) {
	if g.Size() != r.p.a*r.p.b {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", r.p.name, g.Describe(), r.p.outShape)
	}
	if g.DType() == tensor.Complex128 {
		g = g.Real()
	}
	return g.Float64s(), nil
}

// adjoint returns xbar[i, k, j] = s[i, k, j] g[i, j] in the canonical layout.
func (r *lseRule) adjoint(g []float64) []float64 {
	p := r.p
	buf := make([]float64, p.a*p.r*p.b)
	for i := range p.a {
		if p.b == 1 {
			expScale(buf[i*p.r:(i+1)*p.r], r.x[i*p.r:(i+1)*p.r], r.y[i], g[i])
			continue
		}
		yi, gi := r.y[i*p.b:(i+1)*p.b], g[i*p.b:(i+1)*p.b]
		for k := range p.r {
			o := (i*p.r + k) * p.b
			expScaleVec(buf[o:o+p.b], r.x[o:o+p.b], yi, gi)
		}
	}
	return buf
}

func (r *lseRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g, err := r.cotangent(ybar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: restore(r.p, r.adjoint(g))}), nil
}

// jvp returns ydot[i, j] = sum_k s[i, k, j] xdot[i, k, j].
func (r *lseRule) jvp(xdot []float64) []float64 {
	p := r.p
	out := make([]float64, p.a*p.b)
	for i := range p.a {
		yi, acc := r.y[i*p.b:(i+1)*p.b], out[i*p.b:(i+1)*p.b]
		for k := range p.r {
			o := (i*p.r + k) * p.b
			xs, xd := r.x[o:o+p.b], xdot[o:o+p.b]
			xd, yi, acc := xd[:len(xs)], yi[:len(xs)], acc[:len(xs)]
			for j, v := range xs {
				acc[j] += exp(v-yi[j]) * xd[j]
			}
		}
	}
	return out
}

// ForwardTangents returns ydot = sum_k s xdot.
func (r *lseRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xdot := tangent[float64](r.p, r.in, tangentOf)
	if xdot == nil {
		return nil, false, nil
	}
	return output(r.p, r.jvp(xdot)), true, nil
}

// PullbackWithTangents returns xbar = s ybar and
// xbardot = s ybardot + s (xdot - ydot) ybar.
func (r *lseRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	g, err := r.cotangent(ct.Value)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: restore(r.p, r.adjoint(g))}
	xdot := tangent[float64](r.p, r.in, tangentOf)
	if !ct.HasTangent && xdot == nil {
		return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
	}
	var h []float64
	if ct.HasTangent {
		if h, err = r.cotangent(ct.Tangent); err != nil {
			return dst, err
		}
	} else {
		h = make([]float64, len(g))
	}
	var buf []float64
	if xdot == nil {
		buf = r.adjoint(h)
	} else {
		p := r.p
		yd := r.jvp(xdot)
		buf = make([]float64, p.a*p.r*p.b)
		for i := range p.a {
			for k := range p.r {
				o := (i*p.r + k) * p.b
				for j := range p.b {
					oj := i*p.b + j
					buf[o+j] = exp(r.x[o+j]-r.y[oj]) * (h[oj] + (xdot[o+j]-yd[oj])*g[oj])
				}
			}
		}
	}
	d.Tangent, d.HasTangent = restore(r.p, buf), true
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

// lseKernel returns out[i, j] = m + log sum_k exp(x[i, k, j] - m), m the slice max
// (taken as 0 when infinite, so that all -Inf gives -Inf and any +Inf gives +Inf).
func lseKernel(x []float64, a, r, b int) []float64 {
	out := make([]float64, a*b)
	if r == 0 {
		for o := range out {
			out[o] = math.Inf(-1)
		}
		return out
	}
	m := maxKernel(x, a, r, b, false)
	for o, v := range m {
		if math.IsInf(v, 0) {
			m[o] = 0
		}
	}
	for i := range a {
		base := i * r * b
		if b == 1 {
			mi := m[i]
			s := sumExp(x[base:base+r], mi)
			out[i] = mi + math.Log(s)
			continue
		}
		acc, mi := out[i*b:i*b+b], m[i*b:i*b+b]
		for k := range r {
			addExp(acc, x[base+k*b:base+k*b+b], mi)
		}
		for j := range acc {
			acc[j] = mi[j] + math.Log(acc[j])
		}
	}
	return out
}

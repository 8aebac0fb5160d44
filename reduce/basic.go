package reduce

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// SumOp returns the op y = sum of x over axes: y[i, j] = sum_k x[i, k, j], where k
// runs over the reduced axes. Nil or empty axes reduce every axis; negative axes
// count from the end; keepdim keeps the reduced axes with size 1. It is defined for
// float64 and complex128; the sum of an empty slice is 0. A float32 input is
// summed natively in float64 and rounded once (error bound in sum32.go's notes:
// within half an ulp of float32 of the float64 sum, itself within (n-1) 2^-53
// sum_k |x_k| of the exact sum), bit for bit the widened result, with rules in
// float32.
//
// Rules (linear): xbar[i, k, j] = ybar[i, j], ydot = Sum(xdot), xbardot = ybardot
// broadcast back.
func SumOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	return newOp("sum", axes, keepdim, linear{})
}

// Sum is SumOp without a tape.
func Sum(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(SumOp(axes, keepdim), x)
}

// MeanOp returns the op y = Sum(x) / n, with n the number of elements reduced into
// each output (NaN for an empty slice). Axes and keepdim are those of SumOp, and so
// is the native float32 path (the float64 sum times 1/n, rounded once).
//
// Rules (linear): xbar = ybar / n broadcast back, ydot = Mean(xdot).
func MeanOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	return newOp("mean", axes, keepdim, linear{mean: true})
}

// Mean is MeanOp without a tape.
func Mean(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(MeanOp(axes, keepdim), x)
}

// NanSumOp returns Sum with NaN elements counted as zero (float64 only).
//
// Rules: xbar = ybar where x is not NaN and 0 where it is; ydot sums xdot over the
// elements that are not NaN.
func NanSumOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	o := newOp("nansum", axes, keepdim, linear{nan: true})
	o.realOnly = true
	return o
}

// NanSum is NanSumOp without a tape.
func NanSum(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(NanSumOp(axes, keepdim), x)
}

// NanMeanOp returns the mean of the elements that are not NaN (float64 only): NanSum
// divided by their count c (NaN when c is 0).
//
// Rules: xbar = ybar / c where x is not NaN and 0 where it is.
func NanMeanOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	o := newOp("nanmean", axes, keepdim, linear{nan: true, mean: true})
	o.realOnly = true
	return o
}

// NanMean is NanMeanOp without a tape.
func NanMean(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(NanMeanOp(axes, keepdim), x)
}

// linear implements sum, mean, nansum and nanmean. All four are linear in x (the
// NaN pattern that nansum and nanmean skip is fixed where they are recorded), so
// their rules are chainrules.UnaryLinearRule of a map and its adjoint.
type linear struct{ mean, nan bool }

func (l linear) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	c := 1.0
	if l.mean {
		c = 1 / float64(p.Len)
	}
	if x.DType() == tensor.Complex128 {
		y := scaledSum(p, elems[complex128](p.canonical(x)), c)
		return output(p, y), sumRule[complex128](p, in, c), nil
	}
	xs := elems[float64](p.canonical(x))
	if !l.nan {
		return output(p, scaledSum(p, xs, c)), sumRule[float64](p, in, c), nil
	}
	return nanSum(p, in, xs, l.mean)
}

// scaledSum returns c Sum(x) in the canonical layout.
func scaledSum[T tensor.Element](p *plan, xs []T, c float64) []T {
	out := sumKernel(xs, p.Lanes)
	if c != 1 {
		cc := fromReal[T](c)
		for o := range out {
			out[o] *= cc
		}
	}
	return out
}

// sumRule returns the rule of sum and mean, the linear map y = c Sum(x) with c = 1
// or 1/n, for inputs of the dtype of T:
//
//	ydot = c Sum(xdot),   xbar = c ybar broadcast back over the reduced axes.
//
// The broadcast is a view with stride 0 on the reduced axes (PyTorch's expand), so
// the pullback costs no pass over the input's size. A complex tangent or cotangent
// of a real input contributes its real part.
func sumRule[T tensor.Element](p *plan, in cr.NodeID, c float64) cr.Rule[*tensor.Dense] {
	jvp := func(xdot *tensor.Dense) (*tensor.Dense, error) {
		xd, err := inputElems[T](p, xdot)
		if err != nil {
			return nil, err
		}
		return output(p, scaledSum(p, xd, c)), nil
	}
	adjoint := func(g *tensor.Dense) (*tensor.Dense, error) {
		if g == nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: nil cotangent", p.name)
		}
		switch {
		case isComplex[T]():
			g = g.AsComplex()
		case g.DType() == tensor.Complex128:
			g = g.Real()
		}
		if c != 1 {
			g = tensor.Scale(g, c)
		}
		return p.broadcastBack(g)
	}
	return cr.UnaryLinearRule(in, jvp, adjoint)
}

// nanSum computes nansum (mean false) or nanmean of the float64 input xs in the
// canonical layout. With m_k = 0 where x_k is NaN and 1 elsewhere, and the weight
// s_o = 1 (nansum) or 1 / sum_k m_k (nanmean) of output o, it is the linear map
//
//	y_o = s_o sum_k m_k x_k
//
// over the elements k of lane o, so its rule is
//
//	ydot_o = s_o sum_k m_k xdot_k,   xbar_k = m_k s_o ybar_o.
func nanSum(p *plan, in cr.NodeID, xs []float64, mean bool) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	n := p.Inner
	out := make([]float64, p.Count())
	s := make([]float64, p.Count())
	for o, off := range p.Rows() {
		acc, cnt := out[o:o+n], s[o:o+n]
		for j, v := range xs[off : off+n] {
			if v == v {
				acc[j] += v
				cnt[j]++
			}
		}
	}
	for o, c := range s {
		if mean {
			out[o] /= c
			s[o] = 1 / c // +Inf for an all-NaN lane, where no m_k is 1
		} else {
			s[o] = 1
		}
	}
	jvp := func(xdot *tensor.Dense) (*tensor.Dense, error) {
		xd, err := inputElems[float64](p, xdot)
		if err != nil {
			return nil, err
		}
		yd := make([]float64, p.Count())
		for o, off := range p.Rows() {
			acc, w, d := yd[o:o+n], s[o:o+n], xd[off:off+n]
			for j, v := range xs[off : off+n] {
				if v == v {
					acc[j] += w[j] * d[j]
				}
			}
		}
		return output(p, yd), nil
	}
	adjoint := func(ybar *tensor.Dense) (*tensor.Dense, error) {
		g, err := cotangent[float64](p, ybar)
		if err != nil {
			return nil, err
		}
		buf := make([]float64, p.Size())
		for o, off := range p.Rows() {
			gi, w, dst := g[o:o+n], s[o:o+n], buf[off:off+n]
			for j, v := range xs[off : off+n] {
				if v == v {
					dst[j] = w[j] * gi[j]
				}
			}
		}
		return restore(p, buf), nil
	}
	return output(p, out), cr.UnaryLinearRule(in, jvp, adjoint), nil
}

// sumKernel returns out_o = the sum of lane o of x.
func sumKernel[T tensor.Element](x []T, l opkit.Lanes) []T {
	out := make([]T, l.Count())
	if l.Inner == 1 {
		for o, lane := range l.All() {
			out[o] = vmath.Sum(x[lane.Off : lane.Off+lane.Len])
		}
		return out
	}
	for o, off := range l.Rows() {
		addTo(out[o:o+l.Inner], x[off:off+l.Inner])
	}
	return out
}

// addTo adds src into dst elementwise (same length).
func addTo[T tensor.Element](dst, src []T) {
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
// slice gives -Inf. Axes and keepdim are those of SumOp.
//
// Rules: with the softmax s = exp(x - y) (at most 1, so the rule is as stable as the
// primal), xbar = s ybar, ydot = sum_k s xdot, and
// xbardot = s ybardot + s (xdot - ydot) ybar. The pullback is also recorded with
// ops, exp(x - y) ybar (see record.go), so that recorded backward sweeps
// (core.Tape.GradGraph) differentiate logsumexp to any order.
func LogSumExpOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	o := newOp("logsumexp", axes, keepdim, logSumExp{})
	o.realOnly = true
	return o
}

// LogSumExp is LogSumExpOp without a tape.
func LogSumExp(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(LogSumExpOp(axes, keepdim), x)
}

type logSumExp struct{}

func (logSumExp) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	y := lseKernel(xs, p.Lanes)
	return output(p, y), &lseRule{in: [1]cr.NodeID{in}, p: p, x: xs, y: y}, nil
}

// lseRule is the rule of logsumexp, in terms of the softmax s = exp(x - y).
type lseRule struct {
	in [1]cr.NodeID
	p  *plan
	x  []float64 // input in canonical layout
	y  []float64 // output
}

func (r *lseRule) Inputs() []cr.NodeID { return r.in[:] }

// FreshStorage marks the output and every derivative the rule returns as storage
// of their own (chainrules.FreshStorage): the rule keeps the input and its own
// output to read, and hands out nothing it keeps, so that a released tape reuses
// them.
func (*lseRule) FreshStorage() {}

// adjoint returns xbar_k = s_k g_o over the elements k of every lane o, in the
// canonical layout.
func (r *lseRule) adjoint(g []float64) []float64 {
	p, n := r.p, r.p.Inner
	buf := vmath.MakeNoZero[float64](p.Size()) // both loops write every element
	if n == 1 {
		k := p.Len
		forLanes(p.Lanes, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				expScale(buf[o*k:(o+1)*k], r.x[o*k:(o+1)*k], r.y[o], g[o])
			}
		})
		return buf
	}
	forColumns(p.Lanes, func(lo, hi int) {
		for o, off := range p.Rows() {
			expScaleVec(buf[off+lo:off+hi], r.x[off+lo:off+hi], r.y[o+lo:o+hi], g[o+lo:o+hi])
		}
	})
	return buf
}

func (r *lseRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g, err := cotangent[float64](r.p, ybar[0])
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: restore(r.p, r.adjoint(g))}), nil
}

// jvp returns ydot_o = sum_k s_k xdot_k over the elements k of lane o.
func (r *lseRule) jvp(xdot []float64) []float64 {
	p, n := r.p, r.p.Inner
	out := make([]float64, p.Count())
	for o, off := range p.Rows() {
		xs, xd := r.x[off:off+n], xdot[off:off+n]
		xd, yo, acc := xd[:len(xs)], r.y[o:o+len(xs)], out[o:o+len(xs)]
		for j, v := range xs {
			acc[j] += exp(v-yo[j]) * xd[j]
		}
	}
	return out
}

// Forward sets ydot = sum_k s xdot.
func (r *lseRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, err := tangent[float64](r.p, r.in[0], tangentOf)
	if xdot == nil || err != nil {
		return err
	}
	ydot[0], has[0] = output(r.p, r.jvp(xdot)), true
	return nil
}

// PullbackWithTangents returns xbar = s ybar and
// xbardot = s ybardot + s (xdot - ydot) ybar.
func (r *lseRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	g, err := cotangent[float64](r.p, ct.Value)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: restore(r.p, r.adjoint(g))}
	xdot, err := tangent[float64](r.p, r.in[0], tangentOf)
	if err != nil {
		return dst, err
	}
	if !ct.HasTangent && xdot == nil {
		return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d}), nil
	}
	var h []float64
	if ct.HasTangent {
		if h, err = cotangent[float64](r.p, ct.Tangent); err != nil {
			return dst, err
		}
	} else {
		h = make([]float64, len(g))
	}
	var buf []float64
	if xdot == nil {
		buf = r.adjoint(h)
	} else {
		p, n := r.p, r.p.Inner
		yd := r.jvp(xdot)
		buf = make([]float64, p.Size())
		for o, off := range p.Rows() {
			row, xs, xd := buf[off:off+n], r.x[off:off+n], xdot[off:off+n]
			yo, ydo, gi, ho := r.y[o:o+n], yd[o:o+n], g[o:o+n], h[o:o+n]
			for j := range row {
				row[j] = exp(xs[j]-yo[j]) * (ho[j] + (xd[j]-ydo[j])*gi[j])
			}
		}
	}
	d.Tangent, d.HasTangent = restore(r.p, buf), true
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d}), nil
}

// lseKernel returns out_o = m + log sum_k exp(x_k - m) over the elements k of lane
// o, m the lane's maximum (taken as 0 when infinite, so that all -Inf gives -Inf and
// any +Inf gives +Inf).
func lseKernel(x []float64, l opkit.Lanes) []float64 {
	out := make([]float64, l.Count())
	if l.Len == 0 {
		for o := range out {
			out[o] = math.Inf(-1)
		}
		return out
	}
	m := maxKernel(x, l, false)
	for o, v := range m {
		if math.IsInf(v, 0) {
			m[o] = 0
		}
	}
	if l.Inner == 1 {
		k := l.Len
		forLanes(l, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				out[o] = m[o] + math.Log(sumExp(x[o*k:(o+1)*k], m[o]))
			}
		})
		return out
	}
	forColumns(l, func(lo, hi int) {
		for o, off := range l.Rows() {
			addExp(out[o+lo:o+hi], x[off+lo:off+hi], m[o+lo:o+hi])
		}
	})
	for o, s := range out {
		out[o] = m[o] + math.Log(s)
	}
	return out
}

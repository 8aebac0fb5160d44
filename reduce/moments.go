package reduce

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// VarOp returns the op y[i, j] = sum_k |x[i, k, j] - mu[i, j]|^2 / D, with mu the
// mean of the slice, n its length and D = max(0, n - correction): correction 0 is
// the biased (population) variance, 1 the unbiased one, and any real correction is
// allowed, as in PyTorch. For complex x the output is real (PyTorch's definition).
// Axes and keepdim are those of SumOp.
//
// Rules, with d = x - mu: xbar = 2 d ybar / D; ydot = 2 Re sum_k conj(d_k) xdot_k / D;
// xbardot = 2 (d ybardot + (xdot - mean(xdot)) ybar) / D. The pullback is also
// recorded with ops (d by a centring op), so that recorded backward sweeps
// (core.Tape.GradGraph) differentiate var to any order.
func VarOp(axes []int, correction float64, keepdim bool) cr.Op[*tensor.Dense] {
	return newOp("var", axes, keepdim, moment{correction: correction})
}

// Var is VarOp without a tape.
func Var(x *tensor.Dense, axes []int, correction float64, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(VarOp(axes, correction, keepdim), x)
}

// StdOp returns the op y = sqrt(Var(x)), with the axes, correction and keepdim of
// VarOp.
//
// Rules, with d = x - mu and c = ybar / (D y): xbar = c d; ydot = Re sum_k
// conj(d_k) xdot_k / (D y); xbardot = c (xdot - mean(xdot)) + cdot d with
// cdot = ybardot / (D y) - ybar ydot / (D y^2). Where y = 0 the gradient is taken as
// 0, as PyTorch does (the square root has no derivative there). The pullback is also
// recorded with ops, c = ybar r(y) / D with r(y) = 1/y and r(0) = 0, so that recorded
// backward sweeps (core.Tape.GradGraph) differentiate std to any order, every
// derivative keeping the convention (0 where y = 0).
func StdOp(axes []int, correction float64, keepdim bool) cr.Op[*tensor.Dense] {
	return newOp("std", axes, keepdim, moment{correction: correction, std: true})
}

// Std is StdOp without a tape.
func Std(x *tensor.Dense, axes []int, correction float64, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(StdOp(axes, correction, keepdim), x)
}

type moment struct {
	correction float64
	std        bool
}

func (m moment) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	if x.DType() == tensor.Complex128 {
		return applyMoment[complex128](m, p, in, x)
	}
	return applyMoment[float64](m, p, in, x)
}

func applyMoment[T tensor.Element](m moment, p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	xs := elems[T](p.canonical(x))
	mu := shiftedMean(xs, p)
	inv := fromReal[T](1 / float64(p.Len))
	// The corrected two-pass algorithm: with d = x - mu, the rounding error of mu is
	// sum(d)/n, so mu + sum(d)/n is the mean to working precision and
	// sum |d|^2 - |sum d|^2 / n the sum of squares about it. A constant slice then
	// has exactly its value as mean and a variance of exactly 0 (as PyTorch's
	// Welford updates give), whatever the rounding of sum(x)/n.
	y := make([]float64, p.Outer*p.Inner)
	s1 := make([]T, p.Outer*p.Inner)
	for i := range p.Outer {
		for k := range p.Len {
			o := (i*p.Len + k) * p.Inner
			row, mi, yi, si := xs[o:o+p.Inner], mu[i*p.Inner:i*p.Inner+p.Inner], y[i*p.Inner:i*p.Inner+p.Inner], s1[i*p.Inner:i*p.Inner+p.Inner]
			for j, v := range row {
				d := v - mi[j]
				si[j] += d
				yi[j] += reDot(d, d)
			}
		}
	}
	den := math.Max(0, float64(p.Len)-m.correction)
	for o := range y {
		c := s1[o] * inv
		mu[o] += c
		y[o] = math.Max(0, y[o]-reDot(s1[o], c))
		y[o] /= den
		if m.std {
			y[o] = math.Sqrt(y[o])
		}
	}
	return output(p, y), &momentRule[T]{in: [1]cr.NodeID{in}, p: p, x: xs, mu: mu, y: y, den: den, std: m.std}, nil
}

// shiftedMean returns the means of the slices of xs (the canonical layout of p),
// computed about each slice's first element: x0 + mean(x - x0), which is exactly x0
// for a constant slice, whatever its magnitude.
func shiftedMean[T tensor.Element](xs []T, p *plan) []T {
	if p.Len == 0 {
		mu := sumKernel(xs, p.Lanes)
		inv := fromReal[T](1 / float64(p.Len))
		for o := range mu {
			mu[o] *= inv
		}
		return mu
	}
	mu := make([]T, p.Outer*p.Inner)
	inv := fromReal[T](1 / float64(p.Len))
	for i := range p.Outer {
		piv, mi := xs[i*p.Len*p.Inner:i*p.Len*p.Inner+p.Inner], mu[i*p.Inner:i*p.Inner+p.Inner]
		for k := 1; k < p.Len; k++ {
			o := (i*p.Len + k) * p.Inner
			for j, v := range xs[o : o+p.Inner] {
				mi[j] += v - piv[j]
			}
		}
		for j := range mi {
			mi[j] = piv[j] + mi[j]*inv
		}
	}
	return mu
}

type momentRule[T tensor.Element] struct {
	in  [1]cr.NodeID
	p   *plan
	x   []T
	mu  []T
	y   []float64
	den float64
	std bool
}

func (r *momentRule[T]) Inputs() []cr.NodeID { return r.in[:] }

// scale returns the factor s of xbar = s d ybar for output o: 2/D for the variance,
// 1/(D y) for the standard deviation (0 where y = 0).
func (r *momentRule[T]) scale(o int) float64 {
	if !r.std {
		return 2 / r.den
	}
	if r.y[o] == 0 {
		return 0
	}
	return 1 / (r.den * r.y[o])
}

// jvp returns ydot_o = s_o Re sum_k conj(d_k) xdot_k over the elements k of lane o.
func (r *momentRule[T]) jvp(xdot []T) []float64 {
	p, n := r.p, r.p.Inner
	out := make([]float64, p.Count())
	for o, off := range p.Rows() {
		xd, mo, acc := xdot[off:off+n], r.mu[o:o+n], out[o:o+n]
		for j, v := range r.x[off : off+n] {
			acc[j] += reDot(v-mo[j], xd[j])
		}
	}
	for o := range out {
		out[o] *= r.scale(o)
	}
	return out
}

// pullback returns xbar = s d g, plus, when xdot is given, the tangent term
// s (xdot - mean(xdot)) h + sdot d h with sdot the derivative of s along xdot.
func (r *momentRule[T]) pullback(g, h []float64, xdot []T) *tensor.Dense {
	p, n := r.p, r.p.Inner
	buf := make([]T, p.Size())
	var xdMean []T
	var sdot []float64
	if xdot != nil {
		xdMean = sumKernel(xdot, p.Lanes)
		inv := fromReal[T](1 / float64(p.Len))
		for o := range xdMean {
			xdMean[o] *= inv
		}
		sdot = make([]float64, len(g))
		if r.std {
			yd := r.jvp(xdot)
			for o := range sdot {
				if r.y[o] != 0 {
					sdot[o] = -yd[o] / (r.den * r.y[o] * r.y[o])
				}
			}
		}
	}
	for o, off := range p.Rows() {
		row := buf[off : off+n]
		for j, v := range r.x[off : off+n] {
			oj := o + j
			d := v - r.mu[oj]
			s := r.scale(oj)
			b := d * fromReal[T](s*g[oj])
			if xdot != nil {
				b += (xdot[off+j]-xdMean[oj])*fromReal[T](s*h[oj]) + d*fromReal[T](sdot[oj]*h[oj])
			}
			row[j] = b
		}
	}
	return restore(p, buf)
}

func (r *momentRule[T]) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return firstOrder(r.p, r.in[0], r.pullback, ybar[0], dst)
}

func (r *momentRule[T]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, err := tangent[T](r.p, r.in[0], tangentOf)
	if xdot == nil || err != nil {
		return err
	}
	ydot[0], has[0] = output(r.p, r.jvp(xdot)), true
	return nil
}

func (r *momentRule[T]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	// xbardot = s d gd + [s (xdot - mean xdot) + sdot d] g.
	return secondOrder(r.p, r.in[0], r.pullback, a.Cotangents[0], a.TangentOf, dst)
}

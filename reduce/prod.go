package reduce

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// ProdOp returns the op y[i, j] = prod_k x[i, k, j] (float64 or complex128; the
// product of an empty slice is 1). Axes and keepdim are those of SumOp.
//
// Rules: with o_k = prod_{m != k} x_m, the product of the other elements of the
// slice, xbar_k = conj(o_k) ybar and ydot = sum_k o_k xdot_k (the product is
// holomorphic). o_k is computed from prefix and suffix products, never as y / x_k,
// so zeros (one or several) need no special case. Second order:
// xbardot_k = conj(o_k) ybardot + conj(odot_k) ybar with
// odot_k = sum_{m != k} xdot_m prod_{l != k, m} x_l, the dual part of the same
// prefix-suffix products taken over x + e xdot. Any order: the pullback is also
// recorded with ops, the prefix and suffix products as running products (a linear
// recurrence along the lane, whose own pullback is a recurrence the other way), so
// that recorded backward sweeps (core.Tape.GradGraph) differentiate prod to any
// order, zeros included, without division.
func ProdOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	return newOp("prod", axes, keepdim, product{})
}

// Prod is ProdOp without a tape.
func Prod(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(ProdOp(axes, keepdim), x)
}

type product struct{}

func (product) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	if x.DType() == tensor.Complex128 {
		return applyProd[complex128](p, in, x)
	}
	return applyProd[float64](p, in, x)
}

func applyProd[T tensor.Element](p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	xs := elems[T](p.canonical(x))
	n := p.Inner
	out := make([]T, p.Count())
	for o := range out {
		out[o] = 1
	}
	for o, off := range p.Rows() {
		acc := out[o : o+n]
		for j, v := range xs[off : off+n] {
			acc[j] *= v
		}
	}
	return output(p, out), &prodRule[T]{in: [1]cr.NodeID{in}, p: p, x: xs}, nil
}

type prodRule[T tensor.Element] struct {
	in [1]cr.NodeID
	p  *plan
	x  []T
}

func (r *prodRule[T]) Inputs() []cr.NodeID { return r.in[:] }

// others visits every lane: it gathers x (and xdot, if given) along the lane and
// computes o_k and, with xdot, odot_k, then calls f with the lane's number (the
// output index) and the lane.
func (r *prodRule[T]) others(xdot []T, f func(o int, l opkit.Lane, ok, odot []T)) {
	n := r.p.Len
	xsl, ok := make([]T, n), make([]T, n)
	var xd, od, pre []T
	if xdot != nil {
		xd, od, pre = make([]T, n), make([]T, n), make([]T, n)
	}
	for o, l := range r.p.All() {
		for k := range n {
			xsl[k] = r.x[l.At(k)]
			if xd != nil {
				xd[k] = xdot[l.At(k)]
			}
		}
		// Prefix products (value and dual part) into ok and pre, then multiply by
		// the suffix products walking back.
		var pv, pd T = 1, 0
		for k := range n {
			ok[k] = pv
			if xd != nil {
				pre[k] = pd
				pd = pd*xsl[k] + pv*xd[k]
			}
			pv *= xsl[k]
		}
		var sv, sd T = 1, 0
		for k := n - 1; k >= 0; k-- {
			if xd != nil {
				od[k] = pre[k]*sv + ok[k]*sd
				sd = sd*xsl[k] + sv*xd[k]
			}
			ok[k] *= sv
			sv *= xsl[k]
		}
		f(o, l, ok, od)
	}
}

func (r *prodRule[T]) pullback(g, h, xdot []T) *tensor.Dense {
	buf := make([]T, r.p.Size())
	r.others(xdot, func(o int, l opkit.Lane, ok, od []T) {
		for k, v := range ok {
			b := conj(v) * g[o]
			if xdot != nil {
				b += conj(od[k]) * h[o]
			}
			buf[l.At(k)] = b
		}
	})
	return restore(r.p, buf)
}

func (r *prodRule[T]) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return firstOrder(r.p, r.in[0], r.pullback, ybar[0], dst)
}

func (r *prodRule[T]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, err := tangent[T](r.p, r.in[0], tangentOf)
	if xdot == nil || err != nil {
		return err
	}
	out := make([]T, r.p.Count())
	r.others(nil, func(o int, l opkit.Lane, ok, _ []T) {
		var s T
		for k, v := range ok {
			s += v * xdot[l.At(k)]
		}
		out[o] = s
	})
	ydot[0], has[0] = output(r.p, out), true
	return nil
}

func (r *prodRule[T]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return secondOrder(r.p, r.in[0], r.pullback, a.Cotangents[0], a.TangentOf, dst)
}

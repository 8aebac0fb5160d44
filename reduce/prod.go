package reduce

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// ProdOp returns the op y[i, j] = prod_k x[i, k, j] (float64 or complex128; the
// product of an empty slice is 1). Axes and keepdims are those of SumOp.
//
// Rules: with o_k = prod_{m != k} x_m, the product of the other elements of the
// slice, xbar_k = conj(o_k) ybar and ydot = sum_k o_k xdot_k (the product is
// holomorphic). o_k is computed from prefix and suffix products, never as y / x_k,
// so zeros (one or several) need no special case. Second order:
// xbardot_k = conj(o_k) ybardot + conj(odot_k) ybar with
// odot_k = sum_{m != k} xdot_m prod_{l != k, m} x_l, the dual part of the same
// prefix-suffix products taken over x + e xdot.
func ProdOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	return newOp("prod", axes, keepdims, product{})
}

// Prod is ProdOp without a tape.
func Prod(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(ProdOp(axes, keepdims), x)
}

type product struct{}

func (product) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	if x.DType() == tensor.Complex128 {
		return applyProd[complex128](p, in, x)
	}
	return applyProd[float64](p, in, x)
}

func applyProd[T elem](p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	xs := elems[T](p.canonical(x))
	out := make([]T, p.a*p.b)
	for o := range out {
		out[o] = 1
	}
	for i := range p.a {
		acc := out[i*p.b : i*p.b+p.b]
		for k := range p.r {
			row := xs[(i*p.r+k)*p.b : (i*p.r+k+1)*p.b]
			for j, v := range row {
				acc[j] *= v
			}
		}
	}
	return output(p, out), &prodRule[T]{in: in, p: p, x: xs}, nil
}

type prodRule[T elem] struct {
	in cr.NodeID
	p  *plan
	x  []T
}

func (r *prodRule[T]) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// others visits every slice: it gathers x (and xdot, if given) along the reduced
// axis and computes o_k and, with xdot, odot_k, then calls f with the slice's output
// index and canonical offset.
func (r *prodRule[T]) others(xdot []T, f func(o, base int, ok, odot []T)) {
	p := r.p
	n := p.r
	xsl, ok := make([]T, n), make([]T, n)
	var xd, od, pre []T
	if xdot != nil {
		xd, od, pre = make([]T, n), make([]T, n), make([]T, n)
	}
	for i := range p.a {
		for j := range p.b {
			base := i*p.r*p.b + j
			for k := range n {
				xsl[k] = r.x[base+k*p.b]
				if xd != nil {
					xd[k] = xdot[base+k*p.b]
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
			f(i*p.b+j, base, ok, od)
		}
	}
}

func (r *prodRule[T]) pullback(g, h, xdot []T) *tensor.Dense {
	p := r.p
	buf := make([]T, p.a*p.r*p.b)
	r.others(xdot, func(o, base int, ok, od []T) {
		for k, v := range ok {
			b := conj(v) * g[o]
			if xdot != nil {
				b += conj(od[k]) * h[o]
			}
			buf[base+k*p.b] = b
		}
	})
	return restore(p, buf)
}

func (r *prodRule[T]) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: r.pullback(elems[T](ybar), nil, nil)}), nil
}

func (r *prodRule[T]) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xdot := tangent[T](r.p, r.in, tangentOf)
	if xdot == nil {
		return nil, false, nil
	}
	out := make([]T, r.p.a*r.p.b)
	r.others(nil, func(o, base int, ok, _ []T) {
		var s T
		for k, v := range ok {
			s += v * xdot[base+k*r.p.b]
		}
		out[o] = s
	})
	return output(r.p, out), true, nil
}

func (r *prodRule[T]) PullbackWithTangents(ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	g := elems[T](ct.Value)
	d := cr.Dual[*tensor.Dense]{Value: r.pullback(g, nil, nil)}
	xdot := tangent[T](r.p, r.in, tangentOf)
	if ct.HasTangent || xdot != nil {
		h := make([]T, len(g))
		if ct.HasTangent {
			h = elems[T](ct.Tangent)
		}
		if xdot != nil {
			d.Tangent = r.pullback(h, g, xdot)
		} else {
			d.Tangent = r.pullback(h, nil, nil)
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

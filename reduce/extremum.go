package reduce

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// MaxOp returns the op "amax": y[i, j] = max_k x[i, k, j] (float64 only; a NaN in the
// slice makes the maximum NaN, and +0 counts as above -0). Axes and keepdims are those of SumOp; a reduction
// over an empty axis is an error.
//
// Tie policy (that of PyTorch's amax and JAX): the cotangent is split evenly among
// the c elements equal to the maximum, xbar[i, k, j] = ybar[i, j] / c at those
// elements and 0 elsewhere, and ydot[i, j] is the mean of xdot over them. Away from
// ties this is the derivative (c = 1); at a tie it is the average of the one-sided
// derivatives' candidates. A NaN maximum is matched by the NaN elements of its
// slice. The second-order term is zero.
func MaxOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("amax", axes, keepdims, extremum{})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Max is MaxOp without a tape.
func Max(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MaxOp(axes, keepdims), x)
}

// MinOp returns the op "amin", the minimum with the rules and tie policy of MaxOp.
func MinOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("amin", axes, keepdims, extremum{min: true})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Min is MinOp without a tape.
func Min(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MinOp(axes, keepdims), x)
}

type extremum struct{ min bool }

func (e extremum) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	y := maxKernel(xs, p.a, p.r, p.b, e.min)
	r := &extremumRule{in: in, p: p, x: xs, y: y}
	for _, v := range y {
		if v != v {
			r.nan = true
			break
		}
	}
	return output(p, y), r, nil
}

// extremumRule is the rule of amax and amin. Its kernels visit the input in the
// canonical layout and compare every element with its output; nan says whether some
// output is NaN, so that the loops test for NaN only then.
type extremumRule struct {
	in  cr.NodeID
	p   *plan
	x   []float64 // input in canonical layout
	y   []float64 // output
	nan bool
}

func (r *extremumRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// adjoint returns the input-shaped xbar with xbar[i, k, j] = g[i, j] / c[i, j] at the
// c[i, j] elements that attain y[i, j], and 0 elsewhere. The first pass writes g at
// the ties and counts them; a second pass, over the slices that have ties only,
// divides.
func (r *extremumRule) adjoint(gt *tensor.Dense) (*tensor.Dense, error) {
	p := r.p
	if gt.Size() != p.a*p.b {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", p.name, gt.Describe(), p.outShape)
	}
	if gt.DType() == tensor.Complex128 {
		gt = gt.Real()
	}
	g := gt.Float64s()
	buf := make([]float64, p.a*p.r*p.b)
	nan := r.nan
	if p.b == 1 {
		for i := range p.a {
			row, xs, yi, gi := buf[i*p.r:(i+1)*p.r], r.x[i*p.r:(i+1)*p.r], r.y[i], g[i]
			xs = xs[:len(row)]
			c := 0
			for k, v := range xs {
				if v == yi || (nan && v != v && yi != yi) {
					row[k] = gi
					c++
				}
			}
			if c > 1 {
				s := gi / float64(c)
				for k := range row {
					if xs[k] == yi || (nan && xs[k] != xs[k] && yi != yi) {
						row[k] = s
					}
				}
			}
		}
		return restore(p, buf), nil
	}
	cnt := make([]int, p.b)
	for i := range p.a {
		yi, gi := r.y[i*p.b:(i+1)*p.b], g[i*p.b:(i+1)*p.b]
		clear(cnt)
		ties := false
		for k := range p.r {
			o := (i*p.r + k) * p.b
			row, xs := buf[o:o+p.b], r.x[o:o+p.b]
			xs, yi, gi, cnt := xs[:len(row)], yi[:len(row)], gi[:len(row)], cnt[:len(row)]
			for j, v := range xs {
				if v == yi[j] || (nan && v != v && yi[j] != yi[j]) {
					row[j] = gi[j]
					cnt[j]++
					ties = ties || cnt[j] > 1
				}
			}
		}
		if !ties {
			continue
		}
		for k := range p.r {
			o := (i*p.r + k) * p.b
			row := buf[o : o+p.b]
			for j := range row {
				if c := cnt[j]; c > 1 && row[j] != 0 {
					row[j] = gi[j] / float64(c)
				}
			}
		}
	}
	return restore(p, buf), nil
}

func (r *extremumRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, err := r.adjoint(ybar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: xbar}), nil
}

// ForwardTangents returns ydot[i, j] = the mean of xdot over the elements of slice
// (i, j) that attain y[i, j].
func (r *extremumRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	t, ok := tangentOf(r.in)
	if !ok {
		return nil, false, nil
	}
	if t.DType() == tensor.Complex128 {
		t = t.Real()
	}
	xdot := elems[float64](r.p.canonical(t))
	p, nan := r.p, r.nan
	out := make([]float64, p.a*p.b)
	cnt := make([]int, p.a*p.b)
	for i := range p.a {
		yi, si, ci := r.y[i*p.b:(i+1)*p.b], out[i*p.b:(i+1)*p.b], cnt[i*p.b:(i+1)*p.b]
		for k := range p.r {
			o := (i*p.r + k) * p.b
			xs, xd := r.x[o:o+p.b], xdot[o:o+p.b]
			xd, yi, si, ci := xd[:len(xs)], yi[:len(xs)], si[:len(xs)], ci[:len(xs)]
			for j, v := range xs {
				if v == yi[j] || (nan && v != v && yi[j] != yi[j]) {
					si[j] += xd[j]
					ci[j]++
				}
			}
		}
	}
	for o, c := range cnt {
		if c > 1 {
			out[o] /= float64(c)
		}
	}
	return output(p, out), true, nil
}

// PullbackWithTangents returns xbar = the tie split of ybar and xbardot = the tie
// split of ybardot: the split does not move with x (away from NaN and new ties).
func (r *extremumRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], _ cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
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

// maxKernel returns out[i, j] = max_k x[i, k, j] (min if isMin is set) with the
// vector kernels of package vmath and the rules of Go's built-in max and min: a NaN
// in a slice makes its result NaN (as in PyTorch's amax), and +0 is above -0, so the
// result does not depend on the order of the elements.
func maxKernel(x []float64, a, r, b int, isMin bool) []float64 {
	out := make([]float64, a*b)
	if r == 0 {
		return out
	}
	for i := range a {
		base := i * r * b
		if b == 1 {
			if isMin {
				out[i] = vmath.Min(x[base : base+r])
			} else {
				out[i] = vmath.Max(x[base : base+r])
			}
			continue
		}
		// Reduce the rows of the [r, b] block into the output vector one after
		// the other: a pass over two contiguous slices per row.
		acc := out[i*b : i*b+b]
		copy(acc, x[base:base+b])
		for k := 1; k < r; k++ {
			if isMin {
				vmath.MinInto(acc, x[base+k*b:base+k*b+b])
			} else {
				vmath.MaxInto(acc, x[base+k*b:base+k*b+b])
			}
		}
	}
	return out
}

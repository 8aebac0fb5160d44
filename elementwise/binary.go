package elementwise

import (
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// binaryFunc is one row of the binary table: y = f(a, b) with its partial derivatives
// (f_a, f_b) and second partials (f_aa, f_ab, f_bb), each evaluated from (a, b, y).
// Complex rows (fc set) are holomorphic in each argument. run, if set, is a fast path
// for f over one run of the broadcast (see layout.runs).
type binaryFunc struct {
	name string
	f    func(a, b float64) float64
	run  func(dst, a []float64, sa int, b []float64, sb int)
	d1   func(a, b, y float64) (fa, fb float64)
	d2   func(a, b, y float64) (faa, fab, fbb float64)
	// pullRun, if set, is a fast path for the first-order float64 pullback over one
	// run: ga = f_a ybar and gb = f_b ybar (all three of the run's length).
	pullRun func(ga, gb, ybar, a []float64, sa int, b []float64, sb int)
	// linear marks f(a, b) = c_a a + c_b b (add, sub): every second derivative is 0,
	// so the second-order pullback is the first-order pullback of ybardot.
	linear bool

	fc   func(a, b complex128) complex128
	runc func(dst, a []complex128, sa int, b []complex128, sb int)
	d1c  func(a, b, y complex128) (fa, fb complex128)
	d2c  func(a, b, y complex128) (faa, fab, fbb complex128)
}

// binaryOp applies a binaryFunc with NumPy broadcasting.
type binaryOp struct{ fn *binaryFunc }

func (o binaryOp) Name() string { return o.fn.name }

func (o binaryOp) Apply(in []cr.NodeID, xs []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	fn := o.fn
	if len(xs) != 2 || len(in) != 2 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want 2 inputs, got %d", fn.name, len(xs))
	}
	a, b := xs[0], xs[1]
	if a == nil || b == nil {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", fn.name)
	}
	out, err := tensor.BroadcastShapes(a.Shape(), b.Shape())
	if err != nil {
		return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: shapes %v and %v do not broadcast", fn.name, a.Shape(), b.Shape())
	}
	r := &binaryRule{fn: fn, in: [2]cr.NodeID{in[0], in[1]},
		out: out, aShape: slices.Clone(a.Shape()), bShape: slices.Clone(b.Shape()),
		aReal: a.DType() == tensor.Float64, bReal: b.DType() == tensor.Float64}
	r.lay = newLayout(out, r.aShape, r.bShape)
	if r.aReal && r.bReal {
		r.a, r.b = a.Contiguous().Float64s(), b.Contiguous().Float64s()
		r.y = make([]float64, r.lay.size)
		r.lay.runs(func(o, ia, ib, n, sa, sb int) {
			if fn.run != nil {
				fn.run(r.y[o:o+n], r.a[ia:], sa, r.b[ib:], sb)
				return
			}
			for i := range n {
				r.y[o+i] = fn.f(r.a[ia+i*sa], r.b[ib+i*sb])
			}
		})
		y, err := tensor.FromFloat64(r.y, out...)
		return y, r, err
	}
	if fn.fc == nil {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: inputs must be real, got %s and %s", fn.name, a.Describe(), b.Describe())
	}
	r.complex = true
	r.ac, r.bc = a.AsComplex().Contiguous().Complex128s(), b.AsComplex().Contiguous().Complex128s()
	r.yc = make([]complex128, r.lay.size)
	r.lay.runs(func(o, ia, ib, n, sa, sb int) {
		if fn.runc != nil {
			fn.runc(r.yc[o:o+n], r.ac[ia:], sa, r.bc[ib:], sb)
			return
		}
		for i := range n {
			r.yc[o+i] = fn.fc(r.ac[ia+i*sa], r.bc[ib+i*sb])
		}
	})
	y, err := tensor.FromComplex128(r.yc, out...)
	return y, r, err
}

// binaryRule differentiates a binaryFunc at the recorded point.
type binaryRule struct {
	fn                  *binaryFunc
	in                  [2]cr.NodeID
	out, aShape, bShape []int
	lay                 layout
	complex             bool // computed in complex128 (inputs promoted as needed)
	aReal, bReal        bool // input dtypes: a promoted real input gets the real part
	a, b, y             []float64
	ac, bc, yc          []complex128
}

func (r *binaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *binaryRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ab, bb, _, _, err := r.pullback(ybar, nil, nil, nil)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: ab},
		cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: bb}), nil
}

func (r *binaryRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	var ybardot, adot, bdot *tensor.Dense
	if ct.HasTangent {
		ybardot = ct.Tangent
	}
	if t, ok := tangentOf(r.in[0]); ok {
		adot = t
	}
	if t, ok := tangentOf(r.in[1]); ok {
		bdot = t
	}
	ab, bb, abd, bbd, err := r.pullback(ct.Value, ybardot, adot, bdot)
	if err != nil {
		return dst, err
	}
	return append(dst,
		cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: cr.Dual[*tensor.Dense]{Value: ab, Tangent: abd, HasTangent: abd != nil}},
		cr.DualContribution[*tensor.Dense]{Node: r.in[1], Cotangent: cr.Dual[*tensor.Dense]{Value: bb, Tangent: bbd, HasTangent: bbd != nil}}), nil
}

// ForwardTangents returns ydot = f_a adot + f_b bdot, each tangent broadcast.
func (r *binaryRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	adot, okA := tangentOf(r.in[0])
	bdot, okB := tangentOf(r.in[1])
	if !okA && !okB {
		return nil, false, nil
	}
	if !okA {
		adot = nil
	}
	if !okB {
		bdot = nil
	}
	name := r.fn.name
	if !r.complex {
		ad, err := optReal(name, "tangent of input 0", adot, r.aShape)
		if err != nil {
			return nil, false, err
		}
		bd, err := optReal(name, "tangent of input 1", bdot, r.bShape)
		if err != nil {
			return nil, false, err
		}
		yd := make([]float64, r.lay.size)
		r.lay.runs(func(o, ia, ib, n, sa, sb int) {
			for range n {
				fa, fb := r.fn.d1(r.a[ia], r.b[ib], r.y[o])
				var s float64
				if ad != nil {
					s = fa * ad[ia]
				}
				if bd != nil {
					s += fb * bd[ib]
				}
				yd[o] = s
				o, ia, ib = o+1, ia+sa, ib+sb
			}
		})
		y, err := tensor.FromFloat64(yd, r.out...)
		return y, true, err
	}
	ad, err := optComplex(name, "tangent of input 0", adot, r.aShape)
	if err != nil {
		return nil, false, err
	}
	bd, err := optComplex(name, "tangent of input 1", bdot, r.bShape)
	if err != nil {
		return nil, false, err
	}
	yd := make([]complex128, r.lay.size)
	r.lay.runs(func(o, ia, ib, n, sa, sb int) {
		for range n {
			fa, fb := r.fn.d1c(r.ac[ia], r.bc[ib], r.yc[o])
			var s complex128
			if ad != nil {
				s = fa * ad[ia]
			}
			if bd != nil {
				s += fb * bd[ib]
			}
			yd[o] = s
			o, ia, ib = o+1, ia+sa, ib+sb
		}
	})
	y, err := tensor.FromComplex128(yd, r.out...)
	return y, true, err
}

// pullback returns the cotangents of a and b and, when any of ybardot, adot, bdot is
// given (nil means zero), their tangents:
//
//	abar    = sum over broadcast axes of conj(f_a) ybar
//	abardot = sum over broadcast axes of conj(f_a) ybardot + conj(f_aa adot + f_ab bdot) ybar
//
// and likewise for b with (f_b, f_ab adot + f_bb bdot). For real values conj is the
// identity.
func (r *binaryRule) pullback(ybar, ybardot, adot, bdot *tensor.Dense) (ab, bb, abd, bbd *tensor.Dense, err error) {
	name := r.fn.name
	second := ybardot != nil || adot != nil || bdot != nil
	if r.complex {
		return r.pullbackComplex(ybar, ybardot, adot, bdot, second)
	}
	yb, err := realData(name, "cotangent", ybar, r.out)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ybd, err := optReal(name, "cotangent tangent", ybardot, r.out)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ad, err := optReal(name, "tangent of input 0", adot, r.aShape)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	bd, err := optReal(name, "tangent of input 1", bdot, r.bShape)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	fn := r.fn
	if fn.pullRun != nil && (!second || fn.linear) {
		if ab, bb, err = r.pullFast(yb); err != nil || ybd == nil {
			return ab, bb, nil, nil, err
		}
		abd, bbd, err = r.pullFast(ybd)
		return ab, bb, abd, bbd, err
	}
	n := r.lay.size
	ga, gb := make([]float64, n), make([]float64, n)
	var gad, gbd []float64
	if second {
		gad, gbd = make([]float64, n), make([]float64, n)
	}
	r.lay.runs(func(o, ia, ib, m, sa, sb int) {
		for range m {
			x, z, y, w := r.a[ia], r.b[ib], r.y[o], yb[o]
			fa, fb := fn.d1(x, z, y)
			ga[o], gb[o] = fa*w, fb*w
			if second {
				var sa2, sb2 float64
				if ybd != nil {
					sa2, sb2 = fa*ybd[o], fb*ybd[o]
				}
				if ad != nil || bd != nil {
					faa, fab, fbb := fn.d2(x, z, y)
					var xd, zd float64
					if ad != nil {
						xd = ad[ia]
					}
					if bd != nil {
						zd = bd[ib]
					}
					sa2 += (faa*xd + fab*zd) * w
					sb2 += (fab*xd + fbb*zd) * w
				}
				gad[o], gbd[o] = sa2, sb2
			}
			o, ia, ib = o+1, ia+sa, ib+sb
		}
	})
	if ab, err = sumToReal(ga, r.out, r.aShape); err != nil {
		return
	}
	if bb, err = sumToReal(gb, r.out, r.bShape); err != nil || !second {
		return
	}
	if abd, err = sumToReal(gad, r.out, r.aShape); err != nil {
		return
	}
	bbd, err = sumToReal(gbd, r.out, r.bShape)
	return
}

// pullFast is the first-order float64 pullback of yb through fn.pullRun.
func (r *binaryRule) pullFast(yb []float64) (ab, bb *tensor.Dense, err error) {
	n := r.lay.size
	ga, gb := make([]float64, n), make([]float64, n)
	r.lay.runs(func(o, ia, ib, m, sa, sb int) {
		r.fn.pullRun(ga[o:o+m], gb[o:o+m], yb[o:o+m], r.a[ia:], sa, r.b[ib:], sb)
	})
	if ab, err = sumToReal(ga, r.out, r.aShape); err != nil {
		return nil, nil, err
	}
	bb, err = sumToReal(gb, r.out, r.bShape)
	return ab, bb, err
}

func (r *binaryRule) pullbackComplex(ybar, ybardot, adot, bdot *tensor.Dense, second bool) (ab, bb, abd, bbd *tensor.Dense, err error) {
	name := r.fn.name
	yb, err := complexData(name, "cotangent", ybar, r.out)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ybd, err := optComplex(name, "cotangent tangent", ybardot, r.out)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ad, err := optComplex(name, "tangent of input 0", adot, r.aShape)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	bd, err := optComplex(name, "tangent of input 1", bdot, r.bShape)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	n := r.lay.size
	ga, gb := make([]complex128, n), make([]complex128, n)
	var gad, gbd []complex128
	if second {
		gad, gbd = make([]complex128, n), make([]complex128, n)
	}
	fn := r.fn
	r.lay.runs(func(o, ia, ib, m, sa, sb int) {
		for range m {
			x, z, y, w := r.ac[ia], r.bc[ib], r.yc[o], yb[o]
			fa, fb := fn.d1c(x, z, y)
			fa, fb = cmplx.Conj(fa), cmplx.Conj(fb)
			ga[o], gb[o] = fa*w, fb*w
			if second {
				var sa2, sb2 complex128
				if ybd != nil {
					sa2, sb2 = fa*ybd[o], fb*ybd[o]
				}
				if ad != nil || bd != nil {
					faa, fab, fbb := fn.d2c(x, z, y)
					var xd, zd complex128
					if ad != nil {
						xd = ad[ia]
					}
					if bd != nil {
						zd = bd[ib]
					}
					sa2 += cmplx.Conj(faa*xd+fab*zd) * w
					sb2 += cmplx.Conj(fab*xd+fbb*zd) * w
				}
				gad[o], gbd[o] = sa2, sb2
			}
			o, ia, ib = o+1, ia+sa, ib+sb
		}
	})
	if ab, err = sumToComplex(ga, r.out, r.aShape, r.aReal); err != nil {
		return
	}
	if bb, err = sumToComplex(gb, r.out, r.bShape, r.bReal); err != nil || !second {
		return
	}
	if abd, err = sumToComplex(gad, r.out, r.aShape, r.aReal); err != nil {
		return
	}
	bbd, err = sumToComplex(gbd, r.out, r.bShape, r.bReal)
	return
}

// sumToReal sums g (of shape out) over the axes broadcast from shape.
func sumToReal(g []float64, out, shape []int) (*tensor.Dense, error) {
	t, err := tensor.FromFloat64(g, out...)
	if err != nil || slices.Equal(out, shape) {
		return t, err
	}
	return tensor.SumTo(t, shape)
}

// sumToComplex is sumToReal for complex g; a real input (realIn) gets the real part.
func sumToComplex(g []complex128, out, shape []int, realIn bool) (*tensor.Dense, error) {
	t, err := tensor.FromComplex128(g, out...)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(out, shape) {
		if t, err = tensor.SumTo(t, shape); err != nil {
			return nil, err
		}
	}
	if realIn {
		return t.Real(), nil
	}
	return t, nil
}

// layout walks the broadcast of two row-major operands to an output shape. Output
// dims of size 1 are dropped and adjacent dims that both operands step through
// uniformly are merged, so that typical broadcasts become one or two long runs.
type layout struct {
	size   int
	shape  []int // collapsed output dims
	sa, sb []int // the operands' strides on them, 0 on broadcast dims
}

func newLayout(out, ashape, bshape []int) layout {
	l := layout{size: 1}
	for _, d := range out {
		l.size *= d
	}
	sa, sb := alignedStrides(out, ashape), alignedStrides(out, bshape)
	for k, d := range out {
		if d == 1 {
			continue
		}
		if j := len(l.shape) - 1; j >= 0 && l.sa[j] == sa[k]*d && l.sb[j] == sb[k]*d {
			l.shape[j] *= d
			l.sa[j], l.sb[j] = sa[k], sb[k]
			continue
		}
		l.shape = append(l.shape, d)
		l.sa = append(l.sa, sa[k])
		l.sb = append(l.sb, sb[k])
	}
	return l
}

// alignedStrides returns the row-major strides of shape aligned with the trailing
// dims of out, 0 where shape is broadcast (missing or of size 1).
func alignedStrides(out, shape []int) []int {
	st := make([]int, len(out))
	lead := len(out) - len(shape)
	s := 1
	for j := len(shape) - 1; j >= 0; j-- {
		if shape[j] != 1 {
			st[lead+j] = s
		}
		s *= shape[j]
	}
	return st
}

// runs calls fn for each run of consecutive output elements: output offset o, the
// operands' offsets ia, ib, the run length n and the operands' strides along it.
func (l *layout) runs(fn func(o, ia, ib, n, sa, sb int)) {
	if l.size == 0 {
		return
	}
	rank := len(l.shape)
	if rank == 0 {
		fn(0, 0, 0, 1, 0, 0)
		return
	}
	last := rank - 1
	n, sa, sb := l.shape[last], l.sa[last], l.sb[last]
	idx := make([]int, last)
	o, ia, ib := 0, 0, 0
	for {
		fn(o, ia, ib, n, sa, sb)
		o += n
		k := last - 1
		for ; k >= 0; k-- {
			idx[k]++
			ia += l.sa[k]
			ib += l.sb[k]
			if idx[k] < l.shape[k] {
				break
			}
			ia -= l.sa[k] * l.shape[k]
			ib -= l.sb[k] * l.shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// apply2 evaluates op at (a, b) without a tape.
func apply2(op cr.Op[*tensor.Dense], a, b *tensor.Dense) (*tensor.Dense, error) {
	y, _, err := op.Apply([]cr.NodeID{0, 0}, []*tensor.Dense{a, b})
	return y, err
}

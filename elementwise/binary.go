package elementwise

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// binaryOp is the op that Binary returns.
type binaryOp struct {
	name string
	spec BinarySpec
	// realToComplex is spec.RealToComplex on promoted operands (F nil if unset).
	realToComplex Func2[complex128]
}

func (o *binaryOp) Name() string { return o.name }

func (o *binaryOp) NumOutputs() int { return 1 }

func (o *binaryOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(xs) != 2 || len(in) != 2 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want 2 inputs, got %d", o.name, len(xs))
	}
	a, b := xs[0], xs[1]
	if a == nil || b == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", o.name)
	}
	if hasSingle(xs) {
		if o.spec.single != arithNone && bothFloat32(xs) {
			return o.applyFloat32(in, xs, ys)
		}
		return applySingle(o, in, xs, ys)
	}
	if err := opkit.CheckDTypes(o.name, xs); err != nil {
		return nil, err
	}
	r := &binaryRule{op: o, in: [2]cr.NodeID{in[0], in[1]},
		aReal: a.DType() == tensor.Float64, bReal: b.DType() == tensor.Float64}
	same := slices.Equal(a.Shape(), b.Shape())
	if same {
		// a's shape serves as the three: tensors never change their shapes, and
		// the rule only reads them.
		r.out = a.Shape()
		r.aShape, r.bShape = r.out, r.out
	} else {
		out, err := tensor.BroadcastShapes(a.Shape(), b.Shape())
		if err != nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: shapes %v and %v do not broadcast", o.name, a.Shape(), b.Shape())
		}
		r.out, r.aShape, r.bShape = out, slices.Clone(a.Shape()), slices.Clone(b.Shape())
	}
	out := r.out
	wide := tensor.Float64 // the dtype of the result and of the operands' copies
	if o.realToComplex.F != nil || !r.aReal || !r.bReal {
		wide = tensor.Complex128
	}
	if err := checkResult(o.name, wide, out); err != nil {
		return nil, err
	}
	if same {
		r.lay.same(out)
	} else {
		r.lay = newLayout(out, r.aShape, r.bShape)
	}
	if o.realToComplex.F != nil {
		if !r.aReal || !r.bReal {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: inputs must be float64, got %s and %s", o.name, a.Describe(), b.Describe())
		}
		r.complex = true
		r.cx = binaryData[complex128]{fn: &o.realToComplex,
			a: a.AsComplex().Contiguous().Complex128s(), b: b.AsComplex().Contiguous().Complex128s()}
		y, err := tensor.FromComplex128(r.cx.forward(&r.lay), out...)
		return setOutput(ys, y, r, err)
	}
	if r.aReal && r.bReal {
		if o.spec.Real.F == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: inputs must be complex128, got %s and %s", o.name, a.Describe(), b.Describe())
		}
		r.re = binaryData[float64]{fn: &o.spec.Real, a: a.Contiguous().Float64s(), b: b.Contiguous().Float64s()}
		y, err := tensor.FromFloat64(r.re.forward(&r.lay), out...)
		return setOutput(ys, y, r, err)
	}
	if o.spec.Complex.F == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: inputs must be real, got %s and %s", o.name, a.Describe(), b.Describe())
	}
	r.complex = true
	r.cx = binaryData[complex128]{fn: &o.spec.Complex,
		a: a.AsComplex().Contiguous().Complex128s(), b: b.AsComplex().Contiguous().Complex128s()}
	y, err := tensor.FromComplex128(r.cx.forward(&r.lay), out...)
	return setOutput(ys, y, r, err)
}

// ApplyMasked is Apply whose rule leaves out the cotangent of an input whose
// need is false (chainrules.MaskedOp): a sum or a difference then does not sum
// its cotangent down to that operand's shape (the [n, 1] column |P_i|² of
// kmeans' distances, computed from the constant points, added to the [1, k] row
// of the centroids' |C_j|², would cost a pass over n x k), and no op appends
// a contribution for it. The forward is Apply's.
func (o *binaryOp) ApplyMasked(in []cr.NodeID, xs, ys []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	r, err := o.Apply(in, xs, ys)
	if err != nil {
		return nil, err
	}
	if br, ok := r.(*binaryRule); ok && len(need) == 2 {
		br.skip = [2]bool{!need[0], !need[1]}
	}
	return r, nil
}

// setOutput stores y as the one output in ys and returns the rule r, or returns err
// alone when it is set.
func setOutput(ys []*tensor.Dense, y *tensor.Dense, r cr.Rule[*tensor.Dense], err error) (cr.Rule[*tensor.Dense], error) {
	if err != nil {
		return nil, err
	}
	ys[0] = y
	return r, nil
}

// binaryRule differentiates a binary op at the recorded point.
type binaryRule struct {
	op                  *binaryOp
	in                  [2]cr.NodeID
	out, aShape, bShape []int
	lay                 layout
	complex             bool    // computed in complex128 (inputs promoted as needed)
	aReal, bReal        bool    // input dtypes: a promoted real input gets the real part
	skip                [2]bool // input k's cotangent is not needed (ApplyMasked)
	re                  binaryData[float64]
	cx                  binaryData[complex128]
}

// binaryData is a binary function with the recorded operands and output.
type binaryData[T tensor.Element] struct {
	fn      *Func2[T]
	a, b, y []T
}

func (r *binaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *binaryRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ab, bb, _, _, err := r.pullback(ybar[0], nil, nil, nil)
	if err != nil {
		return dst, err
	}
	for k, v := range [2]*tensor.Dense{ab, bb} {
		if !r.skip[k] {
			dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: v})
		}
	}
	return dst, nil
}

func (r *binaryRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	var ybardot *tensor.Dense
	if ct.HasTangent {
		ybardot = ct.Tangent
	}
	adot, bdot, _ := tangents2(tangentOf, r.in)
	ab, bb, abd, bbd, err := r.pullback(ct.Value, ybardot, adot, bdot)
	if err != nil {
		return dst, err
	}
	for k, v := range [2][2]*tensor.Dense{{ab, abd}, {bb, bbd}} {
		if !r.skip[k] {
			dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: cr.Dual[*tensor.Dense]{Value: v[0], Tangent: v[1], HasTangent: v[1] != nil}})
		}
	}
	return dst, nil
}

// tangents2 returns the tangents of the operands in[0] and in[1] of a binary op,
// nil for an operand without one, and whether either has one.
func tangents2(tangentOf cr.TangentOf[*tensor.Dense], in [2]cr.NodeID) (adot, bdot *tensor.Dense, ok bool) {
	adot, okA := tangentOf(in[0])
	bdot, okB := tangentOf(in[1])
	if !okA {
		adot = nil
	}
	if !okB {
		bdot = nil
	}
	return adot, bdot, okA || okB
}

// Forward sets ydot = f_a adot + f_b bdot, each tangent broadcast.
func (r *binaryRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	adot, bdot, ok := tangents2(tangentOf, r.in)
	if !ok {
		return nil
	}
	var (
		y   *tensor.Dense
		err error
	)
	if r.complex {
		y, err = forwardBinary(r, &r.cx, adot, bdot)
	} else {
		y, err = forwardBinary(r, &r.re, adot, bdot)
	}
	if err != nil {
		return err
	}
	ydot[0], has[0] = y, true
	return nil
}

// forwardBinary returns Forward's ydot computed with d.
func forwardBinary[T tensor.Element](r *binaryRule, d *binaryData[T], adot, bdot *tensor.Dense) (*tensor.Dense, error) {
	ad, bd, err := operandTangents[T](r, adot, bdot)
	if err != nil {
		return nil, err
	}
	return result(d.jvp(&r.lay, ad, bd), r.out, false)
}

// operandTangents returns the elements of the optional tangents of a and b (nil
// stays nil), checked against the operands' shapes.
func operandTangents[T tensor.Element](r *binaryRule, adot, bdot *tensor.Dense) (ad, bd []T, err error) {
	if ad, err = optData[T](r.op.name, "tangent of input 0", adot, r.aShape); err != nil {
		return nil, nil, err
	}
	if bd, err = optData[T](r.op.name, "tangent of input 1", bdot, r.bShape); err != nil {
		return nil, nil, err
	}
	return ad, bd, nil
}

// pullback returns the cotangents of a and b and, when any of ybardot, adot, bdot is
// given (nil means zero), their tangents (the formulas are Binary's).
func (r *binaryRule) pullback(ybar, ybardot, adot, bdot *tensor.Dense) (ab, bb, abd, bbd *tensor.Dense, err error) {
	if r.complex {
		return pullbackBinary(r, &r.cx, ybar, ybardot, adot, bdot)
	}
	return pullbackBinary(r, &r.re, ybar, ybardot, adot, bdot)
}

func pullbackBinary[T tensor.Element](r *binaryRule, d *binaryData[T], ybar, ybardot, adot, bdot *tensor.Dense) (ab, bb, abd, bbd *tensor.Dense, err error) {
	if r.op.spec.sum || r.op.spec.diff {
		// The checks of cotangents and operandTangents (nil tangents are zero),
		// without their copies of strided or promoted values, which passThrough
		// does not read.
		if err := checkData[T](r.op.name, "cotangent", ybar, r.out); err != nil {
			return nil, nil, nil, nil, err
		}
		for _, c := range [...]struct {
			what  string
			t     *tensor.Dense
			shape []int
		}{{"cotangent tangent", ybardot, r.out}, {"tangent of input 0", adot, r.aShape}, {"tangent of input 1", bdot, r.bShape}} {
			if c.t != nil {
				if err := checkData[T](r.op.name, c.what, c.t, c.shape); err != nil {
					return nil, nil, nil, nil, err
				}
			}
		}
		return r.passThrough(ybar, ybardot, cr.CotangentSum{})
	}
	yb, ybd, err := cotangents[T](r.op.name, r.out, ybar, ybardot)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ad, bd, err := operandTangents[T](r, adot, bdot)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	second := ybardot != nil || adot != nil || bdot != nil
	var ga, gb, gad, gbd []T
	switch {
	case d.fn.PullRun != nil && !second:
		ga, gb = d.pullFast(&r.lay, yb)
	case d.fn.PullRun != nil && d.fn.Linear:
		ga, gb = d.pullFast(&r.lay, yb)
		if ybd != nil {
			gad, gbd = d.pullFast(&r.lay, ybd)
		}
	default:
		ga, gb, gad, gbd = d.pull(&r.lay, yb, ybd, ad, bd, second)
	}
	if ab, err = sumTo(ga, r.out, r.aShape, r.complex && r.aReal); err != nil {
		return
	}
	if bb, err = sumTo(gb, r.out, r.bShape, r.complex && r.bReal); err != nil || gad == nil {
		return
	}
	if abd, err = sumTo(gad, r.out, r.aShape, r.complex && r.aReal); err != nil {
		return
	}
	bbd, err = sumTo(gbd, r.out, r.bShape, r.complex && r.bReal)
	return
}

// passThrough is the pullback of a + b: abar = SumTo(ybar, shape(a)) and bbar =
// SumTo(ybar, shape(b)), and the same of ybardot (the second partials are zero). An
// operand that was not broadcast gets ybar itself, shared rather than copied (the
// engine never writes into a cotangent it did not make), so the bias add of a dense
// layer passes the layer's cotangent on at no cost. For a - b (spec.diff) bbar and
// bbardot are negated: bbar = -SumTo(ybar, shape(b)), one pass over b's shape
// (a scalar for the x - max(x) of a log-sum-exp), while abar is still ybar itself.
// An operand whose cotangent is not needed (skip, ApplyMasked) gets none. When
// ybar's sum is known (sum, from PullbackSum: a real ybar), the SumTo onto an
// operand of one element is that sum, read instead of computed.
func (r *binaryRule) passThrough(ybar, ybardot *tensor.Dense, sum cr.CotangentSum) (ab, bb, abd, bbd *tensor.Dense, err error) {
	to := func(g *tensor.Dense, shape []int, realOut, neg bool) (*tensor.Dense, error) {
		if g == nil {
			return nil, nil
		}
		if !slices.Equal(r.out, shape) {
			var err error
			if sum.Known && g == ybar && !r.complex && sizeOf(shape) == 1 {
				// SumTo(ybar, shape) holds SumOf(ybar), the known sum, in its
				// one element; a subtrahend's is its negation (negated's -x),
				// made here in the same tensor.
				v := sum.Value
				if neg {
					v, neg = -v, false
				}
				g, err = tensor.FromFloat64([]float64{v}, shape...)
			} else {
				g, err = tensor.SumTo(g, shape)
			}
			if err != nil {
				return nil, err
			}
		}
		if neg {
			var err error
			if g, err = negated(g); err != nil {
				return nil, err
			}
		}
		if realOut {
			g = g.Real()
		}
		return g, nil
	}
	aReal, bReal := r.complex && r.aReal, r.complex && r.bReal
	neg := r.op.spec.diff
	if !r.skip[0] {
		if ab, err = to(ybar, r.aShape, aReal, false); err != nil {
			return
		}
		if abd, err = to(ybardot, r.aShape, aReal, false); err != nil {
			return
		}
	}
	if !r.skip[1] {
		if bb, err = to(ybar, r.bShape, bReal, neg); err != nil {
			return
		}
		bbd, err = to(ybardot, r.bShape, bReal, neg)
	}
	return
}

// negated returns the fresh tensor -g, a float64 one in pooled storage (which a
// released tape reuses, as it does the buffers of the other pullbacks).
func negated(g *tensor.Dense) (*tensor.Dense, error) {
	if g.DType() != tensor.Float64 || g.Size() == 0 {
		return tensor.Scale(g, -1), nil
	}
	src := g.Float64s()
	dst := src // a row-major copy of a strided g is already fresh
	if g.IsContiguous() {
		dst = vmath.MakeNoZero[float64](len(src))
	}
	vmath.Neg(dst, src)
	return tensor.FromFloat64(dst, g.Shape()...)
}

// forward returns y = f(a, b) over the broadcast, keeping it in d.y.
func (d *binaryData[T]) forward(lay *layout) []T {
	fn := d.fn
	d.y = vmath.MakeNoZero[T](lay.size) // the runs cover the output: every element is written
	lay.runs(func(o, ia, ib, n, sa, sb int) {
		if fn.Run != nil {
			fn.Run(d.y[o:o+n], d.a[ia:], sa, d.b[ib:], sb)
			return
		}
		for i := range n {
			d.y[o+i] = fn.F(d.a[ia+i*sa], d.b[ib+i*sb])
		}
	})
	return d.y
}

// jvp returns ydot = f_a adot + f_b bdot over the broadcast (nil ad or bd: zero).
func (d *binaryData[T]) jvp(lay *layout, ad, bd []T) []T {
	if d.fn.Linear && d.fn.Run != nil {
		// f(a, b) = c_a a + c_b b: ydot = f(adot, bdot), with the fast path.
		if ad == nil {
			ad = make([]T, len(d.a))
		}
		if bd == nil {
			bd = make([]T, len(d.b))
		}
		yd := vmath.MakeNoZero[T](lay.size)
		lay.runs(func(o, ia, ib, n, sa, sb int) {
			d.fn.Run(yd[o:o+n], ad[ia:], sa, bd[ib:], sb)
		})
		return yd
	}
	d1 := d.fn.D1
	a, b, y := d.a, d.b, d.y
	yd := vmath.MakeNoZero[T](lay.size)
	if j1 := d.fn.jvp1; j1 != nil {
		lay.runs(func(o, ia, ib, n, sa, sb int) {
			var adr, bdr []T
			if ad != nil {
				adr = ad[ia:]
			}
			if bd != nil {
				bdr = bd[ib:]
			}
			j1(yd[o:o+n], a[ia:], sa, b[ib:], sb, adr, bdr)
		})
		return yd
	}
	lay.runs(func(o, ia, ib, n, sa, sb int) {
		for range n {
			fa, fb := d1(a[ia], b[ib], y[o])
			var s T
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
	return yd
}

// pull returns, over the output, ga = conj(f_a) ybar and gb = conj(f_b) ybar and,
// if second, gad = conj(f_a) ybardot + conj(f_aa adot + f_ab bdot) ybar and gbd =
// conj(f_b) ybardot + conj(f_ab adot + f_bb bdot) ybar (nil ybd, ad or bd: zero),
// before the sums over broadcast axes.
func (d *binaryData[T]) pull(lay *layout, yb, ybd, ad, bd []T, second bool) (ga, gb, gad, gbd []T) {
	d1, d2 := d.fn.D1, d.fn.D2
	a, b, y := d.a, d.b, d.y
	n := lay.size
	ga, gb = vmath.MakeNoZero[T](n), vmath.MakeNoZero[T](n)
	if !second {
		lay.runs(func(o, ia, ib, m, sa, sb int) {
			for range m {
				fa, fb := d1(a[ia], b[ib], y[o])
				w := yb[o]
				ga[o], gb[o] = conj(fa)*w, conj(fb)*w
				o, ia, ib = o+1, ia+sa, ib+sb
			}
		})
		return ga, gb, nil, nil
	}
	gad, gbd = vmath.MakeNoZero[T](n), vmath.MakeNoZero[T](n)
	if p2 := d.fn.pull2; p2 != nil {
		lay.runs(func(o, ia, ib, m, sa, sb int) {
			var ybdr, adr, bdr []T
			if ybd != nil {
				ybdr = ybd[o : o+m]
			}
			if ad != nil {
				adr = ad[ia:]
			}
			if bd != nil {
				bdr = bd[ib:]
			}
			p2(ga[o:o+m], gb[o:o+m], gad[o:o+m], gbd[o:o+m], yb[o:o+m], ybdr, a[ia:], sa, b[ib:], sb, adr, bdr)
		})
		return ga, gb, gad, gbd
	}
	lay.runs(func(o, ia, ib, m, sa, sb int) {
		for range m {
			x, z, v, w := a[ia], b[ib], y[o], yb[o]
			fa, fb := d1(x, z, v)
			fa, fb = conj(fa), conj(fb)
			ga[o], gb[o] = fa*w, fb*w
			var sa2, sb2 T
			if ybd != nil {
				sa2, sb2 = fa*ybd[o], fb*ybd[o]
			}
			if ad != nil || bd != nil {
				faa, fab, fbb := d2(x, z, v)
				var xd, zd T
				if ad != nil {
					xd = ad[ia]
				}
				if bd != nil {
					zd = bd[ib]
				}
				sa2 += conj(faa*xd+fab*zd) * w
				sb2 += conj(fab*xd+fbb*zd) * w
			}
			gad[o], gbd[o] = sa2, sb2
			o, ia, ib = o+1, ia+sa, ib+sb
		}
	})
	return ga, gb, gad, gbd
}

// pullFast is the first-order pullback of yb through fn.PullRun.
func (d *binaryData[T]) pullFast(lay *layout, yb []T) (ga, gb []T) {
	n := lay.size
	ga, gb = vmath.MakeNoZero[T](n), vmath.MakeNoZero[T](n)
	lay.runs(func(o, ia, ib, m, sa, sb int) {
		d.fn.PullRun(ga[o:o+m], gb[o:o+m], yb[o:o+m], d.a[ia:], sa, d.b[ib:], sb)
	})
	return ga, gb
}

// sumTo sums g (of shape out) over the axes broadcast from shape; realOut takes the
// real part (the cotangent of a float64 operand promoted to complex128).
func sumTo[T tensor.Element](g []T, out, shape []int, realOut bool) (*tensor.Dense, error) {
	t, err := result(g, out, false)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(out, shape) {
		if t, err = tensor.SumTo(t, shape); err != nil {
			return nil, err
		}
	}
	if realOut {
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
	run    [1]int
}

// unitStride is the strides of a single run of both operands, shared read-only.
var unitStride = []int{1}

// same sets l to newLayout(out, out, out): operands of the output's own shape make
// one run of unit strides, which l holds in itself, without the general case's
// allocations (small elementwise ops, whose overhead is their allocations). l
// must not be copied afterwards (its shape points into it).
func (l *layout) same(out []int) {
	size := 1
	for _, d := range out {
		size *= d
	}
	if size < 2 {
		*l = newLayout(out, out, out) // one element or none: the general form
		return
	}
	l.size, l.run[0] = size, size
	l.shape, l.sa, l.sb = l.run[:], unitStride, unitStride
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

// checkResult returns an error wrapping chainrules.ErrInvalidArgument if a result of
// dtype dt and the given shape cannot be allocated: the inputs are copied
// (Contiguous, AsComplex) and the result made by methods that cannot fail, and a
// broadcast view can have any number of elements.
func checkResult(name string, dt tensor.DType, shape []int) error {
	if err := tensor.CheckAlloc(dt, shape...); err != nil {
		return fmt.Errorf("%s: the result is too large: %w", name, err)
	}
	return nil
}

// FreshStorage marks the rule's output and cotangents as storage of their own or
// views of its arguments (chainrules.FreshStorage), so that a released tape reuses it.
func (*binaryRule) FreshStorage() {}

package elementwise

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// Native float32 arithmetic. add, sub, mul, div and the internal tanh_backward
// (BinarySpec.single) applied to
// two float32 operands compute in float32, with the broadcasting of the
// double-precision ops, instead of widening: y = a op b is rounded once, as a
// float32 kernel (and PyTorch's) rounds it. The rule stays in float32 for
// float32 cotangents and tangents of the operands' shapes:
//
//	add:  abar = ybar,      bbar = ybar,         ydot = adot + bdot
//	sub:  abar = ybar,      bbar = -ybar,        ydot = adot - bdot
//	others: abar = f_a ybar,  bbar = f_b ybar,   ydot = f_a adot + f_b bdot
//
// each cotangent summed over the axes its operand was broadcast along (SumTo),
// and the second-order rule
//
//	abardot = f_a ybardot + (f_aa adot + f_ab bdot) ybar,
//	bbardot = f_b ybardot + (f_ab adot + f_bb bdot) ybar
//
// with the partials of partials32: for mul f_a = b, f_b = a, f_ab = 1; for div
// f_a = 1/b, f_b = -y/b, f_ab = -1/b², f_bb = 2y/b²; for tanh_backward, f(y, g) =
// (1 - y²) g (tanh's fused pullback), f_y = -2 y g, f_g = 1 - y², f_yy = -2 g,
// f_yg = -2 y (add and sub pass ybardot on as they pass ybar). The recorded pullback is the
// double-precision rule's (the same registered ops on the float32 nodes), and
// cotangents or tangents of another dtype or shape go to the widened rule
// (opkit.ApplyWidened), made on first use.

// arith32 names the float32 kernel of one of the four arithmetic ops.
type arith32 uint8

const (
	arithNone arith32 = iota // no float32 kernel: the op widens
	arithAdd
	arithSub
	arithMul
	arithDiv
	arithTanhBackward // f(y, g) = (1 - y²) g
)

// partials32 returns the partials (f_a, f_b) and second partials (f_aa, f_ab,
// f_bb) of the non-linear kinds at (a, b) with y = f(a, b), in float32.
func partials32(kind arith32, a, b, y float32) (fa, fb, faa, fab, fbb float32) {
	switch kind {
	case arithMul:
		return b, a, 0, 1, 0
	case arithDiv:
		inv := 1 / b
		return inv, -y * inv, 0, -inv * inv, 2 * y * inv * inv
	default: // arithTanhBackward
		return -2 * a * b, 1 - a*a, -2 * b, -2 * a, 0
	}
}

// bothFloat32 reports whether the two operands are float32.
func bothFloat32(xs []*tensor.Dense) bool {
	return xs[0].DType() == tensor.Float32 && xs[1].DType() == tensor.Float32
}

// applyFloat32 applies o, one of the four arithmetic ops, to two float32 operands
// in float32.
func (o *binaryOp) applyFloat32(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	a, b := xs[0], xs[1]
	r := &arith32Rule{kind: o.spec.single, x: [2]*tensor.Dense{a, b}}
	br := &r.base
	br.op, br.in, br.aReal, br.bReal = o, [2]cr.NodeID{in[0], in[1]}, true, true
	if slices.Equal(a.Shape(), b.Shape()) {
		br.out = a.Shape() // tensors never change their shapes, and the rule only reads them
		br.aShape, br.bShape = br.out, br.out
		if err := checkResult(o.name, tensor.Float32, br.out); err != nil {
			return nil, err
		}
		br.lay.same(br.out)
	} else {
		out, err := tensor.BroadcastShapes(a.Shape(), b.Shape())
		if err != nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: shapes %v and %v do not broadcast", o.name, a.Shape(), b.Shape())
		}
		if err := checkResult(o.name, tensor.Float32, out); err != nil {
			return nil, err
		}
		br.out, br.aShape, br.bShape = out, slices.Clone(a.Shape()), slices.Clone(b.Shape())
		br.lay = newLayout(out, br.aShape, br.bShape)
	}
	r.a, r.b = a.Contiguous().Float32s(), b.Contiguous().Float32s()
	r.y = vmath.MakeNoZero[float32](br.lay.size) // the runs cover the output
	run := arithRun32(r.kind)
	br.lay.runs(func(o, ia, ib, n, sa, sb int) { run(r.y[o:o+n], r.a[ia:], sa, r.b[ib:], sb) })
	y, err := tensor.FromFloat32(r.y, br.out...)
	return setOutput(ys, y, r, err)
}

// arithRun32 returns the float32 run kernel of kind.
func arithRun32(kind arith32) func(dst, a []float32, sa int, b []float32, sb int) {
	switch kind {
	case arithAdd:
		return addRun32
	case arithSub:
		return subRun[float32]
	case arithMul:
		return mulRun[float32]
	case arithDiv:
		return divRun[float32]
	default:
		return tanhBackwardRun32
	}
}

// addRun32 is addRun for float32, vectorised (vmath.Add32) where both operands
// step with the output: the same-shape add and each row of the bias add.
func addRun32(dst, a []float32, sa int, b []float32, sb int) {
	if sa == 1 && sb == 1 {
		vmath.Add32(dst, a, b)
		return
	}
	addRun(dst, a, sa, b, sb)
}

// tanhBackwardRun32 is tanh_backward's float32 run kernel: dst = (1 - y²) g.
func tanhBackwardRun32(dst, y []float32, sy int, g []float32, sg int) {
	for i := range dst {
		a := y[i*sy]
		dst[i] = (1 - a*a) * g[i*sg]
	}
}

// arith32Rule is the rule of add, sub, mul or div applied to float32 operands.
type arith32Rule struct {
	kind arith32
	// base holds the op, the inputs, the shapes and the broadcast layout, and
	// gives passThrough (add and sub) and RecordPullback.
	base    binaryRule
	x       [2]*tensor.Dense // the operands as given, for the widened rule
	a, b, y []float32        // contiguous operands and output

	wide lazyWide // the widened rule, made on first use
}

var (
	_ cr.ForwardRule[*tensor.Dense]      = (*arith32Rule)(nil)
	_ cr.SecondOrderRule[*tensor.Dense]  = (*arith32Rule)(nil)
	_ cr.PullbackRecorder[*tensor.Dense] = (*arith32Rule)(nil)
)

func (r *arith32Rule) Inputs() []cr.NodeID { return r.base.in[:] }

// FreshStorage marks the rule's output and cotangents as storage of their own or
// views of its arguments (chainrules.FreshStorage), so that a released tape reuses it.
func (*arith32Rule) FreshStorage() {}

// Affine reports whether the op is linear in its operands (chainrules.AffineRule,
// as binaryRule's): add and sub.
func (r *arith32Rule) Affine() bool { return r.kind == arithAdd || r.kind == arithSub }

// InputTangentsOnly marks the second-order pullback as reading the operands'
// tangents and never the output's (chainrules.InputTangentsOnly, as binaryRule's;
// the widened rule it may hand over to is a binaryRule too).
func (*arith32Rule) InputTangentsOnly() {}

// widened returns the double-precision rule at the widened operands, made on
// first use.
func (r *arith32Rule) widened() (cr.Rule[*tensor.Dense], error) {
	return r.wide.get(r.base.op, r.base.in[:], r.x[:])
}

// f32 returns t's elements when t is a float32 tensor of the given shape (nil t:
// nil, true), and ok false for any other t, which the widened rule takes.
func f32(t *tensor.Dense, shape []int) (v []float32, ok bool) {
	if t == nil {
		return nil, true
	}
	if t.DType() != tensor.Float32 || !slices.Equal(t.Shape(), shape) {
		return nil, false
	}
	return t.Contiguous().Float32s(), true
}

// Pullback sets abar and bbar (see the formulas above).
func (r *arith32Rule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	if len(ybar) != 1 || (len(has) == 1 && !has[0]) || ybar[0] == nil {
		return dst, nil
	}
	yb, ok := f32(ybar[0], r.base.out)
	if !ok {
		w, err := r.widened()
		if err != nil {
			return dst, err
		}
		return w.Pullback(ybar, has, dst)
	}
	ab, bb, _, _, err := r.pullback(ybar[0], yb, nil, nil, nil, nil, false)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.base.in[0], Value: ab},
		cr.Contribution[*tensor.Dense]{Node: r.base.in[1], Value: bb}), nil
}

// PullbackWithTangents sets (abar, abardot) and (bbar, bbardot).
func (r *arith32Rule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	var ybardot, adot, bdot *tensor.Dense
	if ct.HasTangent {
		ybardot = ct.Tangent
	}
	if t, ok := a.TangentOf(r.base.in[0]); ok {
		adot = t
	}
	if t, ok := a.TangentOf(r.base.in[1]); ok {
		bdot = t
	}
	yb, ok1 := f32(ct.Value, r.base.out)
	ybd, ok2 := f32(ybardot, r.base.out)
	ad, ok3 := f32(adot, r.base.aShape)
	bd, ok4 := f32(bdot, r.base.bShape)
	if ct.Value == nil || !ok1 || !ok2 || !ok3 || !ok4 {
		w, err := r.widened()
		if err != nil {
			return dst, err
		}
		return w.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
	}
	// As in the double-precision rule, no tangents at all give no cotangent tangents.
	second := ybd != nil || ad != nil || bd != nil
	ab, bb, abd, bbd, err := r.pullback(ct.Value, yb, ybardot, ybd, ad, bd, second)
	if err != nil {
		return dst, err
	}
	return append(dst,
		cr.DualContribution[*tensor.Dense]{Node: r.base.in[0], Cotangent: cr.Dual[*tensor.Dense]{Value: ab, Tangent: abd, HasTangent: abd != nil}},
		cr.DualContribution[*tensor.Dense]{Node: r.base.in[1], Cotangent: cr.Dual[*tensor.Dense]{Value: bb, Tangent: bbd, HasTangent: bbd != nil}}), nil
}

// pullback returns the cotangents of a and b and, if second, their tangents: ybar
// and ybardot are the cotangent pair as tensors (ybardot nil: zero), yb, ybd, ad, bd
// their and the operand tangents' float32 elements (nil: zero).
func (r *arith32Rule) pullback(ybar *tensor.Dense, yb []float32, ybardot *tensor.Dense, ybd, ad, bd []float32, second bool) (ab, bb, abd, bbd *tensor.Dense, err error) {
	br := &r.base
	if r.kind == arithAdd || r.kind == arithSub {
		// Linear: ybar (and ybardot) passed on, summed and negated as needed.
		// The second partials are zero: a zero ybardot gives no tangents.
		return br.passThrough(ybar, ybardot, cr.CotangentSum{})
	}
	n := br.lay.size
	ga, gb := vmath.MakeNoZero[float32](n), vmath.MakeNoZero[float32](n)
	var gad, gbd []float32
	if second {
		gad, gbd = vmath.MakeNoZero[float32](n), vmath.MakeNoZero[float32](n)
	}
	x, z, y, kind := r.a, r.b, r.y, r.kind
	br.lay.runs(func(o, ia, ib, m, sa, sb int) {
		for i := range m {
			k, p, q := o+i, ia+i*sa, ib+i*sb
			fa, fb, faa, fab, fbb := partials32(kind, x[p], z[q], y[k])
			w := yb[k]
			ga[k], gb[k] = fa*w, fb*w
			if !second {
				continue
			}
			var sa2, sb2, xd, zd float32
			if ybd != nil {
				sa2, sb2 = fa*ybd[k], fb*ybd[k]
			}
			if ad != nil {
				xd = ad[p]
			}
			if bd != nil {
				zd = bd[q]
			}
			gad[k] = sa2 + (faa*xd+fab*zd)*w
			gbd[k] = sb2 + (fab*xd+fbb*zd)*w
		}
	})
	if ab, err = sumTo32(ga, br.out, br.aShape); err != nil {
		return
	}
	if bb, err = sumTo32(gb, br.out, br.bShape); err != nil || !second {
		return
	}
	if abd, err = sumTo32(gad, br.out, br.aShape); err != nil {
		return
	}
	bbd, err = sumTo32(gbd, br.out, br.bShape)
	return
}

// sumTo32 is sumTo for float32 elements g of shape out.
func sumTo32(g []float32, out, shape []int) (*tensor.Dense, error) {
	t, err := tensor.FromFloat32(g, out...)
	if err != nil || slices.Equal(out, shape) {
		return t, err
	}
	return tensor.SumTo(t, shape)
}

// Forward sets ydot (see the formulas above).
func (r *arith32Rule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	adot, bdot, ok := tangents2(tangentOf, r.base.in)
	if !ok {
		return nil
	}
	ad, ok1 := f32(adot, r.base.aShape)
	bd, ok2 := f32(bdot, r.base.bShape)
	if !ok1 || !ok2 {
		w, err := r.widened()
		if err != nil {
			return err
		}
		return w.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
	}
	yd, err := tensor.FromFloat32(r.jvp(ad, bd), r.base.out...)
	if err != nil {
		return err
	}
	ydot[0], has[0] = yd, true
	return nil
}

// jvp returns ydot over the broadcast, a nil ad or bd being zero.
func (r *arith32Rule) jvp(ad, bd []float32) []float32 {
	lay := &r.base.lay
	yd := vmath.MakeNoZero[float32](lay.size)
	x, z, y := r.a, r.b, r.y
	switch r.kind {
	case arithAdd, arithSub:
		sign := float32(1)
		if r.kind == arithSub {
			sign = -1
		}
		run := arithRun32(r.kind)
		lay.runs(func(o, ia, ib, m, sa, sb int) {
			dst := yd[o : o+m]
			switch {
			case ad != nil && bd != nil:
				run(dst, ad[ia:], sa, bd[ib:], sb)
			case ad != nil:
				for i := range dst {
					dst[i] = ad[ia+i*sa]
				}
			default:
				for i := range dst {
					dst[i] = sign * bd[ib+i*sb]
				}
			}
		})
	default:
		kind := r.kind
		lay.runs(func(o, ia, ib, m, sa, sb int) {
			for i := range m {
				p, q := ia+i*sa, ib+i*sb
				fa, fb, _, _, _ := partials32(kind, x[p], z[q], y[o+i])
				var s float32
				if ad != nil {
					s = fa * ad[p]
				}
				if bd != nil {
					s += fb * bd[q]
				}
				yd[o+i] = s
			}
		})
	}
	return yd
}

// RecordPullback is the double-precision rule's, recorded with the same registered
// ops on the float32 nodes.
func (r *arith32Rule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	return r.base.RecordPullback(rec, x, y, ybar)
}

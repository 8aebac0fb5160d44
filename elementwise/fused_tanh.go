package elementwise

import (
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Fused kernels for tanh's higher derivatives. tanh's pullback is the fused
// binary op tanh_backward(y, g) = (1 - y²) g (see derivs.go), whose own pullback,
// recorded from its partials, was five elementwise passes (y g, -2 y g, y², 1 - y²,
// and the two products with the cotangent w, six with the second product). With the
// ternary product mul3(c; a, b, d) = c a b d it is two:
//
//	ybar = mul3(-2; y, g, w)       (= -2 y g w)
//	gbar = tanh_backward(y, w)     (= (1 - y²) w)
//
// and mul3's pullback is mul3 again, of the other two operands and its cotangent, so
// every order of a tanh network's derivatives (the Laplacian of a PINN loss and its
// gradient in the weights, a third derivative) records one pass per term. The
// maths is unchanged: the same products, in one loop instead of several.

// mul3Op is y = c a b d for three float64 tensors of one shape (no broadcasting),
// c a constant. Its rules, with the cotangent w and the tangents adot, bdot, ddot,
// wdot:
//
//	pullback:  abar = c b d w,  bbar = c a d w,  dbar = c a b w
//	tangent:   ydot = c (adot b d + a bdot d + a b ddot)
//	second:    abardot = c (bdot d w + b ddot w + b d wdot), and likewise for b and d
//
// and it records its pullback as the three mul3 products above, so it has
// derivatives of every order. Inputs of different shapes are an error wrapping
// chainrules.ErrShapeMismatch; a dtype other than float64, chainrules.ErrInvalidArgument.
type mul3Op struct{ c float64 }

func (mul3Op) Name() string    { return "mul3" }
func (mul3Op) NumOutputs() int { return 1 }

// Apply computes y = c a b d in one pass.
func (o mul3Op) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if hasSingle(xs) {
		return applySingle(o, in, xs, ys)
	}
	// Arity, nil inputs, and views too large to copy.
	if err := opkit.CheckApply("mul3", in, xs, 3); err != nil {
		return nil, err
	}
	for k, x := range xs {
		if x.DType() != tensor.Float64 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "mul3: input %d is %s, want float64", k, x.Describe())
		}
	}
	shape := slices.Clone(xs[0].Shape())
	for k := 1; k < 3; k++ {
		if !slices.Equal(xs[k].Shape(), shape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "mul3: input %d has shape %v, input 0 %v (mul3 does not broadcast)", k, xs[k].Shape(), shape)
		}
	}
	r := &mul3Rule{c: o.c, in: [3]cr.NodeID{in[0], in[1], in[2]}, shape: shape}
	for k, x := range xs {
		r.v[k] = x.Float64s()
	}
	y, err := tensor.FromFloat64(mul3(o.c, r.v[0], r.v[1], r.v[2]), shape...)
	return setOutput(ys, y, r, err)
}

// mul3 returns c a b d elementwise (a, b, d of one length).
func mul3(c float64, a, b, d []float64) []float64 {
	y := vmath.MakeNoZero[float64](len(a))
	vmath.Mul3(y, a, b, d, c)
	return y
}

// mul3Tangent returns c (ad b d + a bd d + a b dd), a nil tangent being zero, or nil
// when all three are.
func mul3Tangent(c float64, a, ad, b, bd, d, dd []float64) []float64 {
	if ad == nil && bd == nil && dd == nil {
		return nil
	}
	out := make([]float64, len(a))
	b, d = b[:len(a)], d[:len(a)]
	if ad != nil {
		ad = ad[:len(a)]
		for i := range out {
			out[i] = ad[i] * b[i] * d[i]
		}
	}
	if bd != nil {
		bd = bd[:len(a)]
		for i := range out {
			out[i] += a[i] * bd[i] * d[i]
		}
	}
	if dd != nil {
		dd = dd[:len(a)]
		for i := range out {
			out[i] += a[i] * b[i] * dd[i]
		}
	}
	for i := range out {
		out[i] *= c
	}
	return out
}

// mul3Rule differentiates y = c v0 v1 v2 at the recorded operands.
type mul3Rule struct {
	c     float64
	in    [3]cr.NodeID
	shape []int
	v     [3][]float64
}

// others returns the indices of the two operands other than k, in order.
func others(k int) (int, int) {
	switch k {
	case 0:
		return 1, 2
	case 1:
		return 0, 2
	}
	return 0, 1
}

func (r *mul3Rule) Inputs() []cr.NodeID { return r.in[:] }

// FreshStorage marks the rule's cotangents as storage of their own
// (chainrules.FreshStorage), so that a released tape reuses it.
func (*mul3Rule) FreshStorage() {}

func (r *mul3Rule) dense(v []float64) *tensor.Dense {
	t, _ := tensor.FromFloat64(v, r.shape...)
	return t
}

func (r *mul3Rule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	w, err := data[float64]("mul3", "cotangent", ybar[0], r.shape)
	if err != nil {
		return dst, err
	}
	n := len(w)
	ga, gb, gd := vmath.MakeNoZero[float64](n), vmath.MakeNoZero[float64](n), vmath.MakeNoZero[float64](n)
	vmath.Mul3Pull(ga, gb, gd, r.v[0], r.v[1], r.v[2], w, r.c) // the three products in one pass
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: r.dense(ga)},
		cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: r.dense(gb)},
		cr.Contribution[*tensor.Dense]{Node: r.in[2], Value: r.dense(gd)}), nil
}

// tangents returns the tangents of the operands (nil where zero), checked.
func (r *mul3Rule) tangents(tangentOf cr.TangentOf[*tensor.Dense]) (td [3][]float64, err error) {
	for k, id := range r.in {
		if t, ok := tangentOf(id); ok {
			if td[k], err = data[float64]("mul3", "tangent", t, r.shape); err != nil {
				return td, err
			}
		}
	}
	return td, nil
}

func (r *mul3Rule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	td, err := r.tangents(tangentOf)
	if err != nil {
		return err
	}
	yd := mul3Tangent(r.c, r.v[0], td[0], r.v[1], td[1], r.v[2], td[2])
	if yd != nil {
		ydot[0], has[0] = r.dense(yd), true
	}
	return nil
}

func (r *mul3Rule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	w, err := data[float64]("mul3", "cotangent", ct.Value, r.shape)
	if err != nil {
		return dst, err
	}
	var wd []float64
	if ct.HasTangent {
		if wd, err = data[float64]("mul3", "cotangent tangent", ct.Tangent, r.shape); err != nil {
			return dst, err
		}
	}
	td, err := r.tangents(a.TangentOf)
	if err != nil {
		return dst, err
	}
	for k := range 3 {
		i, j := others(k)
		d := cr.Dual[*tensor.Dense]{Value: r.dense(mul3(r.c, r.v[i], r.v[j], w))}
		if t := mul3Tangent(r.c, r.v[i], td[i], r.v[j], td[j], w, wd); t != nil {
			d.Tangent, d.HasTangent = r.dense(t), true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: d})
	}
	return dst, nil
}

// RecordPullback records abar = mul3(c; b, d, w), bbar = mul3(c; a, d, w) and
// dbar = mul3(c; a, b, w) (chainrules.PullbackRecorder).
func (r *mul3Rule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if len(x) != 3 || len(ybar) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "mul3: want 3 inputs and 1 cotangent, got %d and %d", len(x), len(ybar))
	}
	w := ybar[0]
	if !w.Valid() {
		return []cr.NodeID{0, 0, 0}, nil
	}
	op := mul3Op{c: r.c}
	out := make([]cr.NodeID, 3)
	for k := range 3 {
		i, j := others(k)
		out[k] = rec.Apply(op, x[i], x[j], w)
	}
	return out, rec.Err()
}

// tanhBackwardVJP records the pullback of tanh_backward(y, g) = (1 - y²) g for the
// cotangent w: ybar = -2 y g w and gbar = (1 - y²) w, as mul3(-2; y, g, w) and
// tanh_backward(y, w) when y, g and w have one shape (always, when tanh's pullback
// recorded the op), and as the products of the partials otherwise (mul3 does not
// broadcast; the rule sums each cotangent over the axes its operand was broadcast
// along).
func tanhBackwardVJP(e expr, y, g, _, w cr.NodeID) (cr.NodeID, cr.NodeID) {
	if sameShape(e.r, y, g, w) {
		return e.ap(mul3Op{c: -2}, y, g, w), e.ap(tanhBackwardOp, y, w)
	}
	return e.mul(e.scale(-2, e.mul(y, g)), w), e.mul(e.oneMinus(e.square(y)), w)
}

// sameShape reports whether the values of the nodes have one shape.
func sameShape(rec recorder, ids ...cr.NodeID) bool {
	var shape []int
	for k, id := range ids {
		v, err := rec.Value(id)
		if err != nil || v == nil {
			return false
		}
		if k == 0 {
			shape = v.Shape()
		} else if !slices.Equal(v.Shape(), shape) {
			return false
		}
	}
	return true
}

// tanhBackwardRun is tanh_backward's kernel (Func2.Run): dst = (1 - y²) g, one
// vectorised pass (vmath.TanhBackward) for contiguous operands.
func tanhBackwardRun(dst, y []float64, sy int, g []float64, sg int) {
	if sy == 1 && sg == 1 {
		vmath.TanhBackward(dst, y, g)
		return
	}
	for i := range dst {
		dst[i] = (1 - y[i*sy]*y[i*sy]) * g[i*sg]
	}
}

// tanhBackwardPull is tanh_backward's fast pullback (Func2.PullRun): for the
// cotangent v, ybar = -2 y g v and gbar = (1 - y²) v, one vectorised pass
// (vmath.TanhBackwardPull) for contiguous operands.
func tanhBackwardPull(gy, gg, v, y []float64, sy int, g []float64, sg int) {
	if sy == 1 && sg == 1 {
		vmath.TanhBackwardPull(gy[:len(v)], gg, v, y, g)
		return
	}
	for i, w := range v {
		a, b := y[i*sy], g[i*sg]
		gy[i] = (-2 * a * b) * w
		gg[i] = (1 - a*a) * w
	}
}

// fusedTanhEntries returns the registry entries of tanh's fused derivative ops,
// tanh_backward and mul3, with samples for testing/ruletest.
func fusedTanhEntries() []cr.Entry[*tensor.Dense] {
	mul3Samples := func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		var s []cr.Sample[*tensor.Dense]
		for _, c := range []struct {
			name  string
			c     float64
			shape []int
		}{{"float64 [3 4] c=-2", -2, []int{3, 4}}, {"float64 scalar c=1.5", 1.5, nil}, {"float64 [2 0] c=1", 1, []int{2, 0}}} {
			s = append(s, cr.Sample[*tensor.Dense]{Name: c.name, Op: mul3Op{c: c.c}, Inputs: []*tensor.Dense{
				anywhere.draw(rng, tensor.Float64, c.shape...), anywhere.draw(rng, tensor.Float64, c.shape...),
				anywhere.draw(rng, tensor.Float64, c.shape...)}})
		}
		return s
	}
	return []cr.Entry[*tensor.Dense]{
		{Name: "tanh_backward", Arity: 2, DTypes: realOnly, Forward: true, SecondOrder: true,
			Doc:     "y = (1 - a²) b, broadcast: tanh's pullback at its output a for the cotangent b",
			Samples: binarySamples(tanhBackwardOp, false, unitBall, anywhere)},
		{Name: "mul3", Arity: 3, DTypes: realOnly, Forward: true, SecondOrder: true,
			Doc: "y = c a b d, one shape: the product in tanh_backward's pullback", Samples: mul3Samples},
	}
}

// tanhBackwardPull2 is tanh_backward's second-order pullback over one run (Func2's
// pull2): with f(y, g) = (1 - y^2) g, f_y = -2 y g, f_g = 1 - y^2, f_yy = -2 g,
// f_yg = -2 y and f_gg = 0,
//
//	ga  = f_y w,  gad = f_y wdot + (f_yy ydot + f_yg gdot) w,
//	gb  = f_g w,  gbd = f_g wdot + (f_yg ydot + f_gg gdot) w,
//
// the operations of the generic loop in its order (so the same results), without
// its two calls per element.
func tanhBackwardPull2(ga, gb, gad, gbd, yb, ybd, a []float64, sa int, b []float64, sb int, ad, bd []float64) {
	ia, ib := 0, 0
	for o := range ga {
		x, z, w := a[ia], b[ib], yb[o]
		fa, fb := -2*x*z, 1-x*x
		ga[o], gb[o] = fa*w, fb*w
		var sa2, sb2 float64
		if ybd != nil {
			sa2, sb2 = fa*ybd[o], fb*ybd[o]
		}
		if ad != nil || bd != nil {
			var xd, zd float64
			if ad != nil {
				xd = ad[ia]
			}
			if bd != nil {
				zd = bd[ib]
			}
			faa, fab, fbb := -2*z, -2*x, 0.0
			sa2 += (faa*xd + fab*zd) * w
			sb2 += (fab*xd + fbb*zd) * w
		}
		gad[o], gbd[o] = sa2, sb2
		ia, ib = ia+sa, ib+sb
	}
}

// tanhBackwardJVP is tanh_backward's forward tangent over one run (Func2's jvp1),
// ydot = f_y ydot_in + f_g gdot with f_y = -2 y g and f_g = 1 - y^2, the
// operations of the generic loop in its order.
func tanhBackwardJVP(yd, a []float64, sa int, b []float64, sb int, ad, bd []float64) {
	ia, ib := 0, 0
	for o := range yd {
		x, z := a[ia], b[ib]
		fa, fb := -2*x*z, 1-x*x
		var s float64
		if ad != nil {
			s = fa * ad[ia]
		}
		if bd != nil {
			s += fb * bd[ib]
		}
		yd[o] = s
		ia, ib = ia+sa, ib+sb
	}
}

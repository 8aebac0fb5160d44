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
// derivatives of every order. Three float32 inputs are computed in float32 (the
// same products, rounded in float32); other single-precision inputs are widened.
// Inputs of different shapes are an error wrapping chainrules.ErrShapeMismatch; a
// dtype other than float64, chainrules.ErrInvalidArgument.
type mul3Op struct{ c float64 }

func (mul3Op) Name() string    { return "mul3" }
func (mul3Op) NumOutputs() int { return 1 }

// Apply computes y = c a b d in one pass.
func (o mul3Op) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	dt := tensor.Float64
	if hasSingle(xs) {
		if len(xs) != 3 || xs[0] == nil || xs[1] == nil || xs[2] == nil ||
			xs[0].DType() != tensor.Float32 || xs[1].DType() != tensor.Float32 || xs[2].DType() != tensor.Float32 {
			return applySingle(o, in, xs, ys)
		}
		dt = tensor.Float32
	}
	// Arity, nil inputs, and views too large to copy (and for float64 the dtypes).
	check := opkit.CheckApply
	if dt == tensor.Float32 {
		check = opkit.CheckApplyAll
	}
	if err := check("mul3", in, xs, 3); err != nil {
		return nil, err
	}
	for k, x := range xs {
		if x.DType() != dt {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "mul3: input %d is %s, want float64", k, x.Describe())
		}
	}
	shape := slices.Clone(xs[0].Shape())
	for k := 1; k < 3; k++ {
		if !slices.Equal(xs[k].Shape(), shape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "mul3: input %d has shape %v, input 0 %v (mul3 does not broadcast)", k, xs[k].Shape(), shape)
		}
	}
	if dt == tensor.Float32 {
		return applyMul3(o.c, in, xs, ys, shape, (*tensor.Dense).Float32s)
	}
	return applyMul3(o.c, in, xs, ys, shape, (*tensor.Dense).Float64s)
}

// applyMul3 makes mul3's rule and output for checked inputs of element type T.
func applyMul3[T float32 | float64](c float64, in []cr.NodeID, xs, ys []*tensor.Dense, shape []int, elems func(*tensor.Dense) []T) (cr.Rule[*tensor.Dense], error) {
	r := &mul3Rule[T]{c: c, in: [3]cr.NodeID{in[0], in[1], in[2]}, shape: shape}
	for k, x := range xs {
		r.v[k] = elems(x)
	}
	y, err := tensor.FromSlice(mul3(c, r.v[0], r.v[1], r.v[2]), shape...)
	return setOutput(ys, y, r, err)
}

// mul3 returns c a b d elementwise (a, b, d of one length): ((c a) b) d, in
// float64 with vmath.Mul3.
func mul3[T float32 | float64](c float64, a, b, d []T) []T {
	y := vmath.MakeNoZero[T](len(a))
	if y64, ok := any(y).([]float64); ok {
		vmath.Mul3(y64, any(a).([]float64), any(b).([]float64), any(d).([]float64), c)
		return y
	}
	cc := T(c)
	b, d = b[:len(a)], d[:len(a)]
	for i := range y {
		y[i] = cc * a[i] * b[i] * d[i]
	}
	return y
}

// mul3Tangent returns c (ad b d + a bd d + a b dd), a nil tangent being zero, or nil
// when all three are.
func mul3Tangent[T float32 | float64](c float64, a, ad, b, bd, d, dd []T) []T {
	if ad == nil && bd == nil && dd == nil {
		return nil
	}
	out := make([]T, len(a))
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
	cc := T(c)
	for i := range out {
		out[i] *= cc
	}
	return out
}

// mul3Pull sets ga = c b d w, gb = c a d w and gd = c a b w, in float64 with
// vmath.Mul3Pull (one pass).
func mul3Pull[T float32 | float64](ga, gb, gd, a, b, d, w []T, c float64) {
	if ga64, ok := any(ga).([]float64); ok {
		vmath.Mul3Pull(ga64, any(gb).([]float64), any(gd).([]float64),
			any(a).([]float64), any(b).([]float64), any(d).([]float64), any(w).([]float64), c)
		return
	}
	n, cc := len(ga), T(c)
	gb, gd, a, b, d, w = gb[:n], gd[:n], a[:n], b[:n], d[:n], w[:n]
	for i := range ga {
		ca, cb := cc*a[i], cc*b[i]
		ga[i] = cb * d[i] * w[i]
		gb[i] = ca * d[i] * w[i]
		gd[i] = ca * b[i] * w[i]
	}
}

// mul3Rule differentiates y = c v0 v1 v2 at the recorded operands, of element
// type T.
type mul3Rule[T float32 | float64] struct {
	c     float64
	in    [3]cr.NodeID
	shape []int
	v     [3][]T
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

func (r *mul3Rule[T]) Inputs() []cr.NodeID { return r.in[:] }

// FreshStorage marks the rule's cotangents as storage of their own
// (chainrules.FreshStorage), so that a released tape reuses it.
func (*mul3Rule[T]) FreshStorage() {}

func (r *mul3Rule[T]) dense(v []T) *tensor.Dense {
	t, _ := tensor.FromSlice(v, r.shape...)
	return t
}

// data returns the elements of t, which must be of T's dtype and the rule's shape.
func (r *mul3Rule[T]) data(what string, t *tensor.Dense) ([]T, error) {
	var z T
	if _, ok := any(z).(float64); ok {
		v, err := data[float64]("mul3", what, t, r.shape)
		return any(v).([]T), err
	}
	if t == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "mul3: nil %s", what)
	}
	if t.DType() != tensor.Float32 || !slices.Equal(t.Shape(), r.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "mul3: %s is %s, want float32%v", what, t.Describe(), r.shape)
	}
	return any(t.Contiguous().Float32s()).([]T), nil
}

func (r *mul3Rule[T]) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	w, err := r.data("cotangent", ybar[0])
	if err != nil {
		return dst, err
	}
	n := len(w)
	ga, gb, gd := vmath.MakeNoZero[T](n), vmath.MakeNoZero[T](n), vmath.MakeNoZero[T](n)
	mul3Pull(ga, gb, gd, r.v[0], r.v[1], r.v[2], w, r.c) // the three products in one pass
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: r.dense(ga)},
		cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: r.dense(gb)},
		cr.Contribution[*tensor.Dense]{Node: r.in[2], Value: r.dense(gd)}), nil
}

// tangents returns the tangents of the operands (nil where zero), checked.
func (r *mul3Rule[T]) tangents(tangentOf cr.TangentOf[*tensor.Dense]) (td [3][]T, err error) {
	for k, id := range r.in {
		if t, ok := tangentOf(id); ok {
			if td[k], err = r.data("tangent", t); err != nil {
				return td, err
			}
		}
	}
	return td, nil
}

func (r *mul3Rule[T]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
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

func (r *mul3Rule[T]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	w, err := r.data("cotangent", ct.Value)
	if err != nil {
		return dst, err
	}
	var wd []T
	if ct.HasTangent {
		if wd, err = r.data("cotangent tangent", ct.Tangent); err != nil {
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
func (r *mul3Rule[T]) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
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

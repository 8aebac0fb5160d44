package elementwise_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// orderLimit is where the recorded derivatives of a family stop: a recorded
// sweep of order Order through it fails with an *cr.OrderError naming Op.
type orderLimit struct {
	Op    string
	Order int
}

// orderLimits lists every registered family whose derivatives do not reach every
// order, with the order at which a recorded sweep fails and the op it names: none
// does. Every other family is checked to order 3 by TestRecordedPullbacks and,
// since its recorded pullback is built from ops that record theirs, reaches every
// order.
var orderLimits = map[string]orderLimit{}

// TestRecordedPullbacks checks, at every sample of every registered family, the
// pullback recorded with ops (core.Tape.GradGraphSeed) against the hand-written
// rules: its value against Pullback, its derivative along a random direction
// (the Hessian-vector product of <w, f(x)>, by a plain reverse sweep through the
// recorded ops) against the second-order rule, and the third derivative (a
// recorded sweep of the recorded pullback, swept once more) against central
// finite differences of the second-order rule.
func TestRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, elementwise.Register(reg))
	rng := rand.New(rand.NewPCG(11, 12))
	for _, e := range reg.Entries() {
		t.Run(e.Name, func(t *testing.T) {
			lim, limited := orderLimits[e.Name]
			for _, s := range e.Samples(rng) {
				t.Run(s.Name, func(t *testing.T) {
					checkRecorded(t, rng, s.Op, s.Inputs, lim, limited)
				})
			}
		})
	}
}

// checkRecorded is TestRecordedPullbacks at one sample.
func checkRecorded(t *testing.T, rng *rand.Rand, op cr.Op[*tensor.Dense], inputs []*tensor.Dense, lim orderLimit, limited bool) {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := make([]cr.NodeID, len(inputs))
	us := make(map[cr.NodeID]*tensor.Dense, len(inputs))
	for k, x := range inputs {
		xs[k] = tape.Leaf(x.Clone())
		us[xs[k]] = like(rng, x)
	}
	y := tape.Apply(op, xs...)
	require.NoError(t, tape.Err())
	yv := must(tape.Value(y))
	w := like(rng, yv)

	// The hand-written rules: Pullback and the second-order rule along u.
	tan, err := tape.ForwardTangents(us)
	require.NoError(t, err)
	grad, gradDot, err := tape.BackwardWithTangentsSeed(y, cr.Dual[*tensor.Dense]{Value: w}, tan)
	require.NoError(t, err)

	// Order 2: the recorded pullback.
	g, err := tape.GradGraphSeed(y, tape.Constant(w), xs...)
	if limited && lim.Order == 2 {
		requireOrderError(t, err, lim)
		return
	}
	require.NoError(t, err)
	for k, x := range xs {
		requireClose(t, must(tape.Value(g[k])), valueOr(grad, x, inputs[k]), 1e-12, "recorded pullback vs Pullback, input %d", k)
	}

	// Its derivative along u: the Hessian-vector product of <w, f(x)>.
	s := innerSum(t, tape, us, xs, g)
	hv, err := tape.Backward(s)
	require.NoError(t, err)
	for k, x := range xs {
		requireClose(t, valueOr(hv, x, inputs[k]), valueOr(gradDot, x, inputs[k]), 1e-11,
			"derivative of the recorded pullback vs the second-order rule, input %d", k)
	}

	// Order 3: the recorded pullback of the recorded pullback, swept along v,
	// against finite differences of the second-order rule along v.
	h, err := tape.GradGraph(s, xs...)
	if limited && lim.Order == 3 {
		requireOrderError(t, err, lim)
		return
	}
	require.NoError(t, err)
	vs := make(map[cr.NodeID]*tensor.Dense, len(inputs))
	for k, x := range inputs {
		vs[xs[k]] = like(rng, x)
	}
	third, err := tape.Backward(innerSum(t, tape, vs, xs, h))
	require.NoError(t, err)
	// Central differences with step eps and eps/2, combined by Richardson's
	// extrapolation (error O(eps⁴)).
	const eps = 1e-3
	diff := func(h float64) []*tensor.Dense {
		plus := hvp(t, op, shifted(inputs, xs, vs, h), xs, us, w)
		minus := hvp(t, op, shifted(inputs, xs, vs, -h), xs, us, w)
		out := make([]*tensor.Dense, len(xs))
		for k := range xs {
			out[k] = tensor.Space{}.Scale(axpy(-1, minus[k], plus[k]), 1/(2*h))
		}
		return out
	}
	d1, d2 := diff(eps), diff(eps/2)
	for k, x := range xs {
		fd := tensor.Space{}.Scale(axpy(-1, d1[k], tensor.Space{}.Scale(d2[k], 4)), 1.0/3)
		requireClose(t, valueOr(third, x, inputs[k]), fd, 1e-6, "third derivative vs finite differences of the second-order rule, input %d", k)
	}
}

// hvp returns the second-order rule's xbardot at each input for the op at xv with
// output cotangent w and input tangents us (keyed by the NodeIDs xs of the
// leaves, which a fresh tape gives again in the same order).
func hvp(t *testing.T, op cr.Op[*tensor.Dense], xv []*tensor.Dense, xs []cr.NodeID, us map[cr.NodeID]*tensor.Dense, w *tensor.Dense) []*tensor.Dense {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	ids := make([]cr.NodeID, len(xv))
	seeds := make(map[cr.NodeID]*tensor.Dense, len(xv))
	for k, x := range xv {
		ids[k] = tape.Leaf(x)
		seeds[ids[k]] = us[xs[k]]
	}
	y := tape.Apply(op, ids...)
	require.NoError(t, tape.Err())
	tan, err := tape.ForwardTangents(seeds)
	require.NoError(t, err)
	_, gd, err := tape.BackwardWithTangentsSeed(y, cr.Dual[*tensor.Dense]{Value: w}, tan)
	require.NoError(t, err)
	out := make([]*tensor.Dense, len(ids))
	for k, id := range ids {
		out[k] = valueOr(gd, id, xv[k])
	}
	return out
}

// shifted returns the inputs moved by eps along the directions vs.
func shifted(inputs []*tensor.Dense, xs []cr.NodeID, vs map[cr.NodeID]*tensor.Dense, eps float64) []*tensor.Dense {
	out := make([]*tensor.Dense, len(inputs))
	for k, x := range inputs {
		out[k] = axpy(eps, vs[xs[k]], x)
	}
	return out
}

// axpy returns y + a x.
func axpy(a float64, x, y *tensor.Dense) *tensor.Dense {
	return must(tensor.Space{}.Add(y, tensor.Space{}.Scale(x, a)))
}

// innerSum records sum_k Re<u_k, g_k>, a float64 scalar, with ops.
func innerSum(t *testing.T, tape *core.Tape[*tensor.Dense], us map[cr.NodeID]*tensor.Dense, xs, g []cr.NodeID) cr.NodeID {
	var s cr.NodeID
	for k, x := range xs {
		u := us[x]
		if u.DType() == tensor.Complex128 {
			u = must(elementwise.Conj(u))
		}
		p := tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.MulOp, tape.Constant(u), g[k]))
		if must(tape.Value(p)).DType() == tensor.Complex128 {
			p = tape.Apply(elementwise.RealOp, p)
		}
		if s.Valid() {
			s = tape.Apply(elementwise.AddOp, s, p)
		} else {
			s = p
		}
	}
	require.NoError(t, tape.Err())
	return s
}

// like returns a random value of x's shape and dtype.
func like(rng *rand.Rand, x *tensor.Dense) *tensor.Dense {
	return tensor.RandUniform(rng, x.DType(), -1, 1, x.Shape()...)
}

// valueOr returns the cotangent of id in g, or zeros like x if it has none.
func valueOr(g interface {
	Of(cr.NodeID) (*tensor.Dense, bool)
}, id cr.NodeID, x *tensor.Dense) *tensor.Dense {
	if v, ok := g.Of(id); ok && v != nil {
		return v
	}
	return tensor.Space{}.Zero(x)
}

// requireClose requires got and want to have the same shape and dtype and to
// agree elementwise within rtol of the largest element of want (or absolutely
// within rtol when want is small); NaNs must match.
func requireClose(t *testing.T, got, want *tensor.Dense, rtol float64, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	require.Equal(t, want.Shape(), got.Shape(), what)
	require.Equal(t, want.DType(), got.DType(), what)
	g, w := got.AsComplex().Complex128s(), want.AsComplex().Complex128s()
	scale := 1.0
	for _, v := range w {
		if a := cmplx.Abs(v); a > scale && !math.IsInf(a, 0) {
			scale = a
		}
	}
	for i := range w {
		if cmplx.IsNaN(w[i]) || cmplx.IsNaN(g[i]) {
			require.True(t, cmplx.IsNaN(w[i]) && cmplx.IsNaN(g[i]), "%s: element %d: got %v, want %v", what, i, g[i], w[i])
			continue
		}
		if w[i] == g[i] {
			continue
		}
		require.LessOrEqual(t, cmplx.Abs(g[i]-w[i]), rtol*scale, "%s: element %d: got %v, want %v", what, i, g[i], w[i])
	}
}

func requireOrderError(t *testing.T, err error, lim orderLimit) {
	t.Helper()
	var oe *cr.OrderError
	require.ErrorAs(t, err, &oe)
	require.ErrorIs(t, err, cr.ErrOrderNotSupported)
	require.Equal(t, lim, orderLimit{oe.Op, oe.Order})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRecordedOrderLimits states where recorded derivatives stop: every entry of
// orderLimits (checked at every sample by TestRecordedPullbacks) is a registered
// family, and an op built by Unary or Binary without derivative expressions for
// the mode of its input records no pullback, so that a recorded sweep through it
// fails with an *OrderError naming it, at order 2 for an op the program recorded
// and 3 for one that a recorded sweep recorded.
func TestRecordedOrderLimits(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, elementwise.Register(reg))
	names := reg.Names()
	for name := range orderLimits {
		require.True(t, slices.Contains(names, name), "%s is not a registered family", name)
	}

	sin := elementwise.Func1[float64]{F: math.Sin,
		D1: func(x, _ float64) float64 { return math.Cos(x) },
		D2: func(_, y float64) float64 { return -y }}
	bare := elementwise.Unary("bare", elementwise.UnarySpec{Real: sin})
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.Scalar(0.5))
	_, err := tape.GradGraph(tape.Apply(bare, x), x)
	requireOrderError(t, err, orderLimit{"bare", 2})

	// An op whose derivative uses bare: order 2 is recorded, order 3 is not.
	outer := elementwise.Unary("outer", elementwise.UnarySpec{Real: elementwise.Func1[float64]{
		F: func(x float64) float64 { return -math.Cos(x) }, D1: sin.D1, D2: func(x, _ float64) float64 { return math.Cos(x) }},
		Deriv: func(r cr.Recorder[*tensor.Dense], x, _ cr.NodeID) (cr.NodeID, error) { return r.Apply(bare, x), nil }})
	g, err := tape.GradGraph(tape.Apply(outer, x), x)
	require.NoError(t, err)
	require.InDelta(t, math.Sin(0.5), must(tape.Value(g[0])).Float64s()[0], 1e-15)
	_, err = tape.GradGraph(g[0], x)
	requireOrderError(t, err, orderLimit{"bare", 3})

	// Complex input to a spec with Deriv but a Wirtinger definition without VJP.
	wirt := elementwise.Unary("wirt", elementwise.UnarySpec{Real: sin,
		Deriv: func(r cr.Recorder[*tensor.Dense], x, _ cr.NodeID) (cr.NodeID, error) {
			return r.Apply(elementwise.CosOp, x), nil
		},
		Wirtinger: elementwise.Wirtinger{F: cmplx.Conj,
			D1: func(_, _ complex128) (complex128, complex128) { return 0, 1 },
			D2: func(_, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 }}})
	z := tape.Leaf(tensor.ScalarComplex(0.5 + 1i))
	_, err = tape.GradGraph(tape.Apply(elementwise.RealOp, tape.Apply(wirt, z)), z)
	requireOrderError(t, err, orderLimit{"wirt", 2})
	_, err = tape.GradGraph(tape.Apply(wirt, x), x) // the float64 definition records
	require.NoError(t, err)

	// A binary op without Partials or VJP.
	hyp := elementwise.Binary("hyp", elementwise.BinarySpec{Real: elementwise.Func2[float64]{F: math.Hypot,
		D1: func(a, b, y float64) (float64, float64) { return a / y, b / y },
		D2: func(a, b, y float64) (float64, float64, float64) {
			y3 := y * y * y
			return b * b / y3, -a * b / y3, a * a / y3
		}}})
	x2 := tape.Leaf(tensor.Scalar(2))
	_, err = tape.GradGraph(tape.Apply(hyp, x, x2), x, x2)
	requireOrderError(t, err, orderLimit{"hyp", 2})
}

// derivatives returns f(x0) and its first n derivatives, each by a recorded
// backward sweep of the one before.
func derivatives(t *testing.T, f func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID, x0 float64, n int) []float64 {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(tensor.Scalar(x0))
	y := f(tp, x)
	require.NoError(t, tp.Err())
	out := []float64{must(tp.Value(y)).Float64s()[0]}
	for range n {
		g, err := tp.GradGraph(y, x)
		require.NoError(t, err)
		y = g[0]
		out = append(out, must(tp.Value(y)).Float64s()[0])
	}
	return out
}

// TestRecordedDerivativesOfHighOrder compares repeated recorded sweeps of
// non-polynomial functions, and of x³, with their closed-form derivatives up to
// order 5, so that neither a constant nor a quadratic model passes.
func TestRecordedDerivativesOfHighOrder(t *testing.T) {
	const x0 = 0.7
	un := func(op cr.Op[*tensor.Dense]) func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
		return func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID { return tp.Apply(op, x) }
	}
	s, c := math.Sincos(x0)
	e := math.Exp(x0)
	th := math.Tanh(x0)
	sg := 1 / (1 + math.Exp(-x0))
	sq := math.Sqrt(x0)
	for _, tc := range []struct {
		name string
		f    func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID
		want []float64
	}{
		{"x*x*x", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
			return tp.Apply(elementwise.MulOp, tp.Apply(elementwise.MulOp, x, x), x)
		}, []float64{x0 * x0 * x0, 3 * x0 * x0, 6 * x0, 6, 0, 0}},
		{"pow_scalar 3", un(elementwise.PowScalarOp(3)), []float64{x0 * x0 * x0, 3 * x0 * x0, 6 * x0, 6, 0, 0}},
		{"pow 2.5", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
			return tp.Apply(elementwise.PowOp, x, tp.Constant(tensor.Scalar(2.5)))
		}, []float64{math.Pow(x0, 2.5), 2.5 * math.Pow(x0, 1.5), 3.75 * math.Pow(x0, 0.5), 1.875 * math.Pow(x0, -0.5),
			-0.9375 * math.Pow(x0, -1.5), 1.40625 * math.Pow(x0, -2.5)}},
		{"sin", un(elementwise.SinOp), []float64{s, c, -s, -c, s, c}},
		{"cos", un(elementwise.CosOp), []float64{c, -s, -c, s, c, -s}},
		{"exp", un(elementwise.ExpOp), []float64{e, e, e, e, e, e}},
		{"exp(sin)", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
			return tp.Apply(elementwise.ExpOp, tp.Apply(elementwise.SinOp, x))
		}, func() []float64 {
			es := math.Exp(s)
			return []float64{es, c * es, (c*c - s) * es, (c*c*c - 3*s*c - c) * es,
				(c*c*c*c - 6*s*c*c - 4*c*c + 3*s*s + s) * es}
		}()},
		{"log", un(elementwise.LogOp), []float64{math.Log(x0), 1 / x0, -1 / (x0 * x0), 2 / (x0 * x0 * x0), -6 / math.Pow(x0, 4), 24 / math.Pow(x0, 5)}},
		{"sqrt", un(elementwise.SqrtOp), []float64{sq, 0.5 / sq, -0.25 / (sq * x0), 0.375 / (sq * x0 * x0), -0.9375 / (sq * x0 * x0 * x0)}},
		{"reciprocal", un(elementwise.ReciprocalOp), []float64{1 / x0, -1 / (x0 * x0), 2 / math.Pow(x0, 3), -6 / math.Pow(x0, 4), 24 / math.Pow(x0, 5)}},
		{"tanh", un(elementwise.TanhOp), []float64{th, 1 - th*th, -2 * th * (1 - th*th), -2 * (1 - th*th) * (1 - 3*th*th),
			8 * th * (1 - th*th) * (2 - 3*th*th)}},
		{"sigmoid", un(elementwise.SigmoidOp), []float64{sg, sg * (1 - sg), sg * (1 - sg) * (1 - 2*sg),
			sg * (1 - sg) * (1 - 6*sg + 6*sg*sg)}},
		{"softplus", un(elementwise.SoftplusOp), []float64{math.Log1p(e), sg, sg * (1 - sg), sg * (1 - sg) * (1 - 2*sg)}},
		{"erf", un(elementwise.ErfOp), []float64{math.Erf(x0), 2 / math.SqrtPi * math.Exp(-x0*x0), -4 * x0 / math.SqrtPi * math.Exp(-x0*x0),
			(8*x0*x0 - 4) / math.SqrtPi * math.Exp(-x0*x0)}},
		{"lgamma", un(elementwise.LgammaOp), nil}, // checked against polygamma below
		{"sinc", un(elementwise.SincOp), sincDerivatives(x0, 5)},
		{"sinc near 0", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
			return tp.Apply(elementwise.SincOp, tp.Apply(elementwise.ShiftOp(0.01-x0), x))
		}, sincDerivatives(0.01, 5)},
		{"i0", un(elementwise.I0Op), besselDerivatives(x0, 5, false)},
		{"i0e", un(elementwise.I0eOp), besselDerivatives(x0, 5, true)},
		{"relu", un(elementwise.ReluOp), []float64{x0, 1, 0, 0}},
		{"scale and shift", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
			return tp.Apply(elementwise.SquareOp, tp.Apply(elementwise.ShiftOp(1), tp.Apply(elementwise.ScaleOp(3), x)))
		}, []float64{(3*x0 + 1) * (3*x0 + 1), 6 * (3*x0 + 1), 18, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = []float64{math.NaN()}
				for n := range 4 {
					want = append(want, must(elementwise.Polygamma(tensor.Scalar(x0), n)).Float64s()[0])
				}
			}
			got := derivatives(t, tc.f, x0, len(want)-1)
			for k := range want {
				if math.IsNaN(want[k]) {
					continue
				}
				require.InDelta(t, want[k], got[k], 1e-12*math.Max(1, math.Abs(want[k])), "derivative %d", k)
			}
		})
	}
}

// TestRecordedHessian differentiates a function of two broadcast tensors that is
// not quadratic, f = sum(sin(a b) a³ + e^a / b), twice by recorded sweeps: the
// recorded gradient's Jacobian (rows by plain reverse sweeps) is the Hessian,
// compared with the closed form, and a third recorded sweep gives a third
// derivative, compared with the closed form too.
func TestRecordedHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	av := tensor.RandUniform(rng, tensor.Float64, 0.5, 1.5, 2, 3)
	bv := tensor.RandUniform(rng, tensor.Float64, 0.5, 1.5, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	a, b := tape.Leaf(av), tape.Leaf(bv)
	ab := tape.Apply(elementwise.MulOp, a, b)
	term1 := tape.Apply(elementwise.MulOp, tape.Apply(elementwise.SinOp, ab), tape.Apply(elementwise.PowScalarOp(3), a))
	term2 := tape.Apply(elementwise.DivOp, tape.Apply(elementwise.ExpOp, a), b)
	f := tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.AddOp, term1, term2))
	g, err := tape.GradGraph(f, a, b)
	require.NoError(t, err)
	A, B := av.Float64s(), bv.Float64s()
	// Closed forms, with u = a_ij b_j, for the element (i, j) of a.
	for i := range 2 {
		for j := range 3 {
			x, z := A[3*i+j], B[j]
			s, c := math.Sincos(x * z)
			// d²f/da_ij² and d²f/da_ij db_j
			faa := -s*z*z*x*x*x + 6*c*z*x*x + 6*s*x + math.Exp(x)/z
			fab := -s*z*x*x*x*x + 4*c*x*x*x - math.Exp(x)/(z*z)
			// d³f/da_ij³
			faaa := -c*z*z*z*x*x*x - 9*s*z*z*x*x + 18*c*z*x + 6*s + math.Exp(x)/z
			row, err := tape.Backward(tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.MulOp, g[0], tape.Constant(unitAt(6, 3*i+j, 2, 3)))))
			require.NoError(t, err)
			ha := must2(row.Of(a)).Float64s()
			hb := must2(row.Of(b)).Float64s()
			require.InDelta(t, faa, ha[3*i+j], 1e-12*math.Max(1, math.Abs(faa)))
			require.InDelta(t, fab, hb[j], 1e-12*math.Max(1, math.Abs(fab)))
			// The third derivative: a recorded sweep of the recorded Hessian row.
			hrow := tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.MulOp, g[0], tape.Constant(unitAt(6, 3*i+j, 2, 3))))
			h, err := tape.GradGraph(hrow, a)
			require.NoError(t, err)
			h3, err := tape.GradGraph(tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.MulOp, h[0], tape.Constant(unitAt(6, 3*i+j, 2, 3)))), a)
			require.NoError(t, err)
			require.InDelta(t, faaa, must(tape.Value(h3[0])).Float64s()[3*i+j], 1e-11*math.Max(1, math.Abs(faaa)))
		}
	}
}

func unitAt(n, k int, shape ...int) *tensor.Dense {
	v := make([]float64, n)
	v[k] = 1
	return must(tensor.FromFloat64(v, shape...))
}

func must2[T any](v T, ok bool) T {
	if !ok {
		panic("absent")
	}
	return v
}

// sincDerivatives returns sinc(x) and its first n derivatives, pi^k g_k(pi x) with
// g_k(u) = int_0^1 t^k cos(u t + k pi/2) dt, by Simpson's rule.
func sincDerivatives(x float64, n int) []float64 {
	out := make([]float64, n+1)
	for k := range out {
		out[k] = math.Pow(math.Pi, float64(k)) * simpson(func(t float64) float64 {
			return math.Pow(t, float64(k)) * math.Cos(math.Pi*x*t+float64(k)*math.Pi/2)
		}, 0, 1, 20000)
	}
	return out
}

// besselDerivatives returns I0(x) (or e^-x I0(x) if scaled, for x > 0) and its
// first n derivatives, from I0^(k) = 2^-k sum_j C(k, j) I_|k-2j| and
// I_m(x) = (1/pi) int_0^pi e^(x cos t) cos(m t) dt.
func besselDerivatives(x float64, n int, scaled bool) []float64 {
	in := func(m int) float64 {
		return simpson(func(t float64) float64 { return math.Exp(x*math.Cos(t)) * math.Cos(float64(m)*t) }, 0, math.Pi, 2000) / math.Pi
	}
	d := make([]float64, n+1) // I0^(k)
	for k := range d {
		c := 1.0 // C(k, j)
		for j := 0; j <= k; j++ {
			m := k - 2*j
			if m < 0 {
				m = -m
			}
			d[k] += c * in(m)
			c = c * float64(k-j) / float64(j+1)
		}
		d[k] /= math.Pow(2, float64(k))
	}
	if !scaled {
		return d
	}
	out := make([]float64, n+1) // (e^-x I0)^(k) = e^-x sum_j C(k, j) (-1)^(k-j) I0^(j)
	for k := range out {
		c := 1.0
		for j := 0; j <= k; j++ {
			out[k] += c * math.Pow(-1, float64(k-j)) * d[j]
			c = c * float64(k-j) / float64(j+1)
		}
		out[k] *= math.Exp(-x)
	}
	return out
}

// simpson integrates f over [a, b] with Simpson's rule on m (even) intervals.
func simpson(f func(float64) float64, a, b float64, m int) float64 {
	h := (b - a) / float64(m)
	s := f(a) + f(b)
	for i := 1; i < m; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// TestRecordedPullbackAtSpecialPoints compares the recorded pullback with Pullback
// where the derivatives have PyTorch's masks and one-sided choices (kinks, ties,
// zeros of pow and xlogy, the origin for angle, sgn, atan2 and hypot, clamped
// logit, overflowing branches), so that the masks of the expressions keep the
// masked partials exactly 0 (no 0 * Inf = NaN) and pick the same side.
func TestRecordedPullbackAtSpecialPoints(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	r := func(v ...float64) *tensor.Dense { return must(tensor.FromFloat64(v, len(v))) }
	c := func(v ...complex128) *tensor.Dense { return must(tensor.FromComplex128(v, len(v))) }
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
	}{
		{"abs", elementwise.AbsOp, []*tensor.Dense{r(0, -1, 2, nan)}},
		{"abs complex", elementwise.AbsOp, []*tensor.Dense{c(0, 1i, -3+4i)}},
		{"sgn complex", elementwise.SgnOp, []*tensor.Dense{c(0, 1i, -3+4i)}},
		{"angle complex", elementwise.AngleOp, []*tensor.Dense{c(0, 1i, -3+4i)}},
		{"softsign complex", elementwise.SoftsignOp, []*tensor.Dense{c(0, 1i, -3+4i)}},
		{"relu", elementwise.ReluOp, []*tensor.Dense{r(0, -1, 2, nan)}},
		{"relu6", elementwise.Relu6Op, []*tensor.Dense{r(0, 6, 3, 7)}},
		{"hardtanh", elementwise.HardtanhOp, []*tensor.Dense{r(-1, 1, 0.5, 2)}},
		{"hardshrink", elementwise.HardshrinkOp, []*tensor.Dense{r(-0.5, 0.5, 0.7, 0)}},
		{"threshold", elementwise.ThresholdOp(0.1, 2), []*tensor.Dense{r(0.1, 0.2, 0)}},
		{"elu", elementwise.EluOp, []*tensor.Dense{r(0, 800, -800, -1)}},
		{"celu negative alpha", elementwise.CeluAlphaOp(-2), []*tensor.Dense{r(0, 3, -1)}},
		{"softplus", elementwise.SoftplusOp, []*tensor.Dense{r(20, 30, -30, 0)}},
		{"logit eps", elementwise.LogitEpsOp(0.05), []*tensor.Dense{r(0, 0.01, 0.05, 0.5, 1)}},
		{"logit", elementwise.LogitOp, []*tensor.Dense{r(-0.5, 0, 0.5, 1.5)}},
		{"sinc", elementwise.SincOp, []*tensor.Dense{r(0, 1e-9, 1, -2.5)}},
		{"i1 i0e i1e at 0", elementwise.I1eOp, []*tensor.Dense{r(0, 1e-9, -3)}},
		{"i0e", elementwise.I0eOp, []*tensor.Dense{r(0, 1e-9, -3, 40)}},
		{"nan_to_num", elementwise.NanToNumOp, []*tensor.Dense{r(inf, -inf, nan, 1)}},
		{"frexp", elementwise.FrexpOp, []*tensor.Dense{r(0, 0.5, 3, -7)}},
		{"reciprocal", elementwise.ReciprocalOp, []*tensor.Dense{r(0, 2)}},
		{"sqrt", elementwise.SqrtOp, []*tensor.Dense{r(0, 2)}},
		{"pow at zeros", elementwise.PowOp, []*tensor.Dense{r(0, 0, 0, 0, 2, 2), r(0, 1, 2, -1, 0, 0.5)}},
		{"pow complex at zeros", elementwise.PowOp, []*tensor.Dense{c(0, 0, 0, 1i), c(0, 1, 2+1i, 0)}},
		{"pow_scalar 0 at 0", elementwise.PowScalarOp(0), []*tensor.Dense{r(0, 2)}},
		{"pow_scalar 1 at 0", elementwise.PowScalarOp(1), []*tensor.Dense{r(0, 2)}},
		{"atan2 at the origin", elementwise.Atan2Op, []*tensor.Dense{r(0, 1, 0), r(0, 0, -1)}},
		{"hypot at the origin", elementwise.HypotOp, []*tensor.Dense{r(0, 3, 0), r(0, 4, -1)}},
		{"copysign at 0", elementwise.CopysignOp, []*tensor.Dense{r(0, -2, 3), r(-1, 1, math.Copysign(0, -1))}},
		{"xlogy", elementwise.XlogyOp, []*tensor.Dense{r(0, 0, 0, 1, 0), r(0, -1, 2, 0, nan)}},
		{"xlog1py", elementwise.Xlog1pyOp, []*tensor.Dense{r(0, 0, 0, 1), r(-1, -2, 2, -1)}},
		{"maximum ties and NaN", elementwise.MaximumOp, []*tensor.Dense{r(1, 2, nan, 3), r(1, 1, 0, nan)}},
		{"fmax ties and NaN", elementwise.FmaxOp, []*tensor.Dense{r(1, 2, nan, 3), r(1, 1, 0, nan)}},
		{"clamp_min ties", elementwise.ClampMinOp, []*tensor.Dense{r(1, 2, 0), r(1, 1, 3)}},
		{"div by zero", elementwise.DivOp, []*tensor.Dense{r(1, 0, -1), r(0, 0, 2)}},
		{"prelu", elementwise.PreluOp, []*tensor.Dense{must(tensor.FromFloat64([]float64{0, 1, -1, 2, -3, 0}, 2, 3)), r(inf, 0.5, nan)}},
		{"logaddexp with infinities", elementwise.LogaddexpOp, []*tensor.Dense{r(0, -inf, 1000), r(0, 1, -1000)}},
		{"remainder at a jump", elementwise.RemainderOp, []*tensor.Dense{r(2, -2, 3), r(1, 1, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tape := core.NewTape[*tensor.Dense](tensor.Space{})
			xs := make([]cr.NodeID, len(tc.in))
			for k, x := range tc.in {
				xs[k] = tape.Leaf(x)
			}
			y := tape.Apply(tc.op, xs...)
			require.NoError(t, tape.Err())
			yv := must(tape.Value(y))
			w := tensor.Space{}.Rand(yv, rand.New(rand.NewPCG(5, 6)))
			grad, err := tape.BackwardSeed(y, w)
			require.NoError(t, err)
			g, err := tape.GradGraphSeed(y, tape.Constant(w), xs...)
			require.NoError(t, err)
			for k, x := range xs {
				requireClose(t, must(tape.Value(g[k])), valueOr(grad, x, tc.in[k]), 1e-13, "input %d", k)
			}
		})
	}
}

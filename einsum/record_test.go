package einsum_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The recorded pullback of every registry sample of einsum, checked as the recipe
// of notes/RECORDED.md: it equals Pullback; its derivative along random directions
// (a plain sweep over the recorded VJP, and forward over it) equals the
// second-order rule; its recorded derivative (third order) matches central
// differences of the second-order rule; and a fourth recorded sweep succeeds.
func TestRecordedPullbackSamples(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, einsum.Register(reg))
	rng := rand.New(rand.NewPCG(7, 8))
	for _, e := range reg.Entries() {
		for _, s := range e.Samples(rng) {
			t.Run(s.Name, func(t *testing.T) { checkRecorded(t, rng, s.Op, s.Inputs, 0) })
		}
	}
}

// Masked operands (constants) get no recorded cotangent, and the others are
// unchanged, to third order.
func TestRecordedPullbackMasked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A := tensor.RandN(rng, tensor.Complex128, 3, 4)
	B := tensor.RandN(rng, tensor.Float64, 4, 2)
	C := tensor.RandN(rng, tensor.Complex128, 2)
	W := tensor.RandN(rng, tensor.Complex128, 3)
	op := einsum.Op("ij,jk,k->i")
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	a, b, c := tp.Constant(A), tp.Leaf(B), tp.Leaf(C)
	y := tp.Apply(op, a, b, c)
	g, err := tp.GradGraphSeed(y, tp.Constant(W), a, b, c)
	require.NoError(t, err)
	ref := core.NewTape[*tensor.Dense](tensor.Space{})
	ra, rb, rc := ref.Leaf(A), ref.Leaf(B), ref.Leaf(C)
	gr, err := ref.BackwardSeed(ref.Apply(op, ra, rb, rc), W)
	require.NoError(t, err)
	for k, id := range []cr.NodeID{rb, rc} {
		want, _ := gr.Of(id)
		got := value(t, tp, g[k+1])
		require.True(t, tensor.EqualApprox(want, got, 1e-13, 1e-13), "operand %d", k+1)
	}
	// The constant's cotangent is zero: nothing was recorded for it.
	require.Zero(t, sq(value(t, tp, g[0])))
	checkRecorded(t, rng, op, []*tensor.Dense{A, B, C}, 0)
}

// nn.MatmulOp records einsum's rule, so it has einsum's orders too (vector-matrix,
// batched with broadcasting, complex).
func TestRecordedMatmul(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		name string
		x    []*tensor.Dense
	}{
		{"matrix", []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 2, 3), tensor.RandN(rng, tensor.Float64, 3, 2)}},
		{"vector matrix", []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3), tensor.RandN(rng, tensor.Float64, 3, 2)}},
		{"batched broadcast complex", []*tensor.Dense{tensor.RandN(rng, tensor.Complex128, 2, 1, 2, 3), tensor.RandN(rng, tensor.Complex128, 3, 3, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) { checkRecorded(t, rng, nn.MatmulOp, c.x, 0) })
	}
}

// Einsums differentiate to the fourth order exactly: f(x) = (x^T M x)^2 has the
// fourth directional derivative 24 (u^T M u)^2 along u.
func TestRecordedEinsumFourthOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	M := tensor.RandN(rng, tensor.Float64, 3, 3)
	X := tensor.RandN(rng, tensor.Float64, 3)
	U := tensor.RandN(rng, tensor.Float64, 3)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x, m, u := tp.Leaf(X), tp.Constant(M), tp.Constant(U)
	q := tp.Apply(einsum.Op("i,ij,j->"), x, m, x)
	f := tp.Apply(einsum.Op(",->"), q, q)
	// Each derivative along u is a recorded gradient contracted with u.
	cur := f
	for range 4 {
		g, err := tp.GradGraph(cur, x)
		require.NoError(t, err)
		cur = tp.Apply(einsum.Op("i,i->"), g[0], u)
	}
	uMu := 0.0
	for i := range 3 {
		for j := range 3 {
			uMu += U.AtFloat64(i) * M.AtFloat64(i, j) * U.AtFloat64(j)
		}
	}
	require.InDelta(t, 24*uMu*uMu, value(t, tp, cur).AtFloat64(), 1e-10*(1+24*uMu*uMu))
}

// ---- the recipe (shared in spirit with the other primitive packages' tests) ----

// dotOp is the test op s = sum_k Re<u_k, x_k> of inputs shaped like the u_k:
// linear, so cr.LinearRule gives it every order.
type dotOp struct{ u []*tensor.Dense }

func (dotOp) Name() string    { return "test_dot" }
func (dotOp) NumOutputs() int { return 1 }

func (o dotOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	apply := func(xs []*tensor.Dense, ok []bool) (*tensor.Dense, error) {
		s := 0.0
		for k, v := range xs {
			if ok != nil && !ok[k] {
				continue
			}
			d, err := tensor.Space{}.Inner(o.u[k], v)
			if err != nil {
				return nil, err
			}
			s += d
		}
		return tensor.Scalar(s), nil
	}
	v, err := apply(x, nil)
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.LinearRule(in, nil, apply, func(k int, g *tensor.Dense) (*tensor.Dense, error) {
		return tensor.Scale(o.u[k], complex(g.AtFloat64(), 0)), nil
	}), nil
}

func randLike(rng *rand.Rand, xs []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(xs))
	for k, x := range xs {
		out[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
	}
	return out
}

func value(t *testing.T, tp *core.Tape[*tensor.Dense], id cr.NodeID) *tensor.Dense {
	t.Helper()
	v, err := tp.Value(id)
	require.NoError(t, err)
	return v
}

// of returns the entry of g for id, or zeros like like.
func of(g interface {
	Of(cr.NodeID) (*tensor.Dense, bool)
}, id cr.NodeID, like *tensor.Dense) *tensor.Dense {
	if v, ok := g.Of(id); ok && v != nil {
		return v
	}
	return tensor.New(like.DType(), like.Shape()...)
}

// closeAll reports whether the tensors a and b agree to tol relative to their
// overall size (norms over all of them).
func closeAll(t *testing.T, what string, a, b []*tensor.Dense, tol float64) {
	t.Helper()
	var d2, a2, b2 float64
	for k := range a {
		require.Equal(t, a[k].Shape(), b[k].Shape(), "%s: shape of %d", what, k)
		diff, err := tensor.Sub(a[k], b[k])
		require.NoError(t, err)
		d2 += sq(diff)
		a2 += sq(a[k])
		b2 += sq(b[k])
	}
	d, n := math.Sqrt(d2), math.Max(math.Sqrt(a2), math.Sqrt(b2))
	require.LessOrEqual(t, d, tol*n+1e-14, "%s: |a-b| = %g, |a| = %g, |b| = %g", what, d, math.Sqrt(a2), math.Sqrt(b2))
}

func sq(x *tensor.Dense) float64 {
	v, err := tensor.Space{}.Inner(x, x)
	if err != nil {
		panic(err)
	}
	return v
}

// apply records op on the leaves and returns its outputs and the scalar
// L = sum_j Re<w_j, y_j> (the seed of the VJP), for w given or drawn.
func apply(tp *core.Tape[*tensor.Dense], op cr.Op[*tensor.Dense], xs []cr.NodeID, w []*tensor.Dense, rng *rand.Rand) ([]cr.NodeID, cr.NodeID, []*tensor.Dense) {
	var ys []cr.NodeID
	if op.NumOutputs() == 1 {
		ys = []cr.NodeID{tp.Apply(op, xs...)}
	} else {
		ys = tp.ApplyMulti(op, xs...)
	}
	if tp.Err() != nil {
		return nil, 0, nil
	}
	if w == nil {
		vals := make([]*tensor.Dense, len(ys))
		for j, y := range ys {
			vals[j], _ = tp.Value(y)
		}
		w = randLike(rng, vals)
	}
	return ys, tp.Apply(dotOp{w}, ys...), w
}

// hvp returns the second-order rule's H u at x: the tangent of the gradient of
// L = sum_j Re<w_j, f_j(x)> along u, from a fresh tape.
func hvp(t *testing.T, op cr.Op[*tensor.Dense], x, u, w []*tensor.Dense) []*tensor.Dense {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := make([]cr.NodeID, len(x))
	seeds := map[cr.NodeID]*tensor.Dense{}
	for k, v := range x {
		xs[k] = tp.Leaf(v)
		seeds[xs[k]] = u[k]
	}
	ys, l, _ := apply(tp, op, xs, w, nil)
	require.NoError(t, tp.Err())
	tan, err := tp.ForwardTangents(seeds)
	require.NoError(t, err)
	var gt *core.Gradients[*tensor.Dense]
	if len(ys) == 1 {
		_, gt, err = tp.BackwardWithTangentsSeed(ys[0], cr.Dual[*tensor.Dense]{Value: w[0]}, tan)
	} else {
		_, gt, err = tp.BackwardWithTangents(l, tan)
	}
	require.NoError(t, err)
	out := make([]*tensor.Dense, len(x))
	for k, id := range xs {
		out[k] = of(gt, id, x[k])
	}
	return out
}

// checkRecorded runs the recipe on op at x. maxOrder 0 means every order works; 1
// that GradGraph returns an *cr.OrderError of order 2 naming the op; 2 that the
// recorded VJP works but a sweep over it (order 3) returns an *cr.OrderError.
func checkRecorded(t *testing.T, rng *rand.Rand, op cr.Op[*tensor.Dense], x []*tensor.Dense, maxOrder int) {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := make([]cr.NodeID, len(x))
	for k, v := range x {
		xs[k] = tp.Leaf(v)
	}
	ys, l, w := apply(tp, op, xs, nil, rng)
	require.NoError(t, tp.Err())
	u, v, d := randLike(rng, x), randLike(rng, x), randLike(rng, x)
	// References first, before anything is recorded: the plain VJP and the
	// second-order rule's H u.
	var gr *core.Gradients[*tensor.Dense]
	var err error
	if len(ys) == 1 {
		gr, err = tp.BackwardSeed(ys[0], w[0])
	} else {
		gr, err = tp.Backward(l)
	}
	require.NoError(t, err)
	vjp := make([]*tensor.Dense, len(x))
	for k, id := range xs {
		vjp[k] = of(gr, id, x[k])
	}
	hu := hvp(t, op, x, u, w)

	// 1. The recorded VJP equals the pullback.
	var g []cr.NodeID
	if len(ys) == 1 {
		g, err = tp.GradGraphSeed(ys[0], tp.Constant(w[0]), xs...)
	} else {
		g, err = tp.GradGraph(l, xs...)
	}
	if maxOrder == 1 {
		requireOrderError(t, err, op.Name(), 2)
		return
	}
	require.NoError(t, err)
	gv := make([]*tensor.Dense, len(g))
	for k, id := range g {
		gv[k] = value(t, tp, id)
	}
	closeAll(t, "recorded VJP vs pullback", gv, vjp, 1e-13)

	// 2. Its derivative along u, by a plain reverse sweep over it and by forward
	// tangents through it, is the second-order rule's H u.
	s := tp.Apply(dotOp{u}, g...)
	require.NoError(t, tp.Err())
	gs, err := tp.Backward(s)
	require.NoError(t, err)
	tanU := map[cr.NodeID]*tensor.Dense{}
	for k, id := range xs {
		tanU[id] = u[k]
	}
	tan, err := tp.ForwardTangents(tanU)
	require.NoError(t, err)
	rev, fwd := make([]*tensor.Dense, len(x)), make([]*tensor.Dense, len(x))
	for k, id := range xs {
		rev[k] = of(gs, id, x[k])
		fwd[k] = of(tan, g[k], x[k])
	}
	closeAll(t, "reverse over recorded VJP vs second-order rule", rev, hu, 1e-12)
	closeAll(t, "forward over recorded VJP vs second-order rule", fwd, hu, 1e-12)

	// 3. Third order: the recorded derivative of s, and the second-order sweep over
	// s, against central differences of the second-order rule.
	h, err := tp.GradGraph(s, xs...)
	if maxOrder == 2 {
		requireOrderError(t, err, "", 3)
		return
	}
	require.NoError(t, err)
	hv := make([]*tensor.Dense, len(h))
	for k, id := range h {
		hv[k] = value(t, tp, id)
	}
	closeAll(t, "recorded HVP vs second-order rule", hv, hu, 1e-12)
	third := tp.Apply(dotOp{v}, h...)
	gt, err := tp.Backward(third)
	require.NoError(t, err)
	tanV := map[cr.NodeID]*tensor.Dense{}
	for k, id := range xs {
		tanV[id] = v[k]
	}
	tv, err := tp.ForwardTangents(tanV)
	require.NoError(t, err)
	_, gst, err := tp.BackwardWithTangents(s, tv)
	require.NoError(t, err)
	// F(x) = Re<v, H(x) u>; dF along d by central differences.
	F := func(sgn float64) float64 {
		xp := make([]*tensor.Dense, len(x))
		for k := range x {
			xp[k], err = tensor.AddScaled(x[k], sgn*1e-4, d[k])
			require.NoError(t, err)
		}
		f := 0.0
		for k, hk := range hvp(t, op, xp, u, w) {
			ip, err := tensor.Space{}.Inner(v[k], hk)
			require.NoError(t, err)
			f += ip
		}
		return f
	}
	fd := (F(1) - F(-1)) / 2e-4
	scale := 1.0
	for _, hk := range hu {
		scale += math.Sqrt(sq(hk))
	}
	for name, grad := range map[string]interface {
		Of(cr.NodeID) (*tensor.Dense, bool)
	}{"reverse over recorded HVP": gt, "second-order sweep over recorded VJP": gst} {
		got := 0.0
		for k, id := range xs {
			ip, err := tensor.Space{}.Inner(d[k], of(grad, id, x[k]))
			require.NoError(t, err)
			got += ip
		}
		require.InDelta(t, fd, got, 1e-6*math.Max(math.Abs(fd), math.Abs(got))+1e-8*scale, "%s: third derivative", name)
	}

	// 4. A fourth recorded sweep goes through.
	_, err = tp.GradGraph(third, xs...)
	require.NoError(t, err)
}

// requireOrderError checks that err is an *cr.OrderError of the given order, naming
// op (if op is not empty).
func requireOrderError(t *testing.T, err error, op string, order int) {
	t.Helper()
	var oe *cr.OrderError
	require.True(t, errors.As(err, &oe), "want an *OrderError, got %v", err)
	require.ErrorIs(t, err, cr.ErrOrderNotSupported)
	require.Equal(t, order, oe.Order)
	if op != "" {
		require.Equal(t, op, oe.Op)
	}
}

package reduce_test

// The recipe of the recorded-pullback tests (notes/RECORDED.md), the same in the
// tests of packages einsum, index, permute and reduce (each test package has its
// copy: they cannot share test code).

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// dotOp is the test op s = sum_k Re<u_k, x_k> of inputs shaped like the u_k:
// linear, so cr.LinearRule gives it every order.
type recDot struct{ u []*tensor.Dense }

func (recDot) Name() string    { return "test_dot" }
func (recDot) NumOutputs() int { return 1 }

func (o recDot) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	recApply := func(xs []*tensor.Dense, ok []bool) (*tensor.Dense, error) {
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
	v, err := recApply(x, nil)
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.LinearRule(in, nil, recApply, func(k int, g *tensor.Dense) (*tensor.Dense, error) {
		return tensor.Scale(o.u[k], complex(g.AtFloat64(), 0)), nil
	}), nil
}

func recRandLike(rng *rand.Rand, xs []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(xs))
	for k, x := range xs {
		out[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
	}
	return out
}

func recValue(t *testing.T, tp *core.Tape[*tensor.Dense], id cr.NodeID) *tensor.Dense {
	t.Helper()
	v, err := tp.Value(id)
	require.NoError(t, err)
	return v
}

// of returns the entry of g for id, or zeros like like.
func recOf(g interface {
	Of(cr.NodeID) (*tensor.Dense, bool)
}, id cr.NodeID, like *tensor.Dense) *tensor.Dense {
	if v, ok := g.Of(id); ok && v != nil {
		return v
	}
	return tensor.New(like.DType(), like.Shape()...)
}

// closeAll reports whether the tensors a and b agree to tol relative to their
// overall size (norms over all of them).
func recClose(t *testing.T, what string, a, b []*tensor.Dense, tol float64) {
	t.Helper()
	var d2, a2, b2 float64
	for k := range a {
		require.Equal(t, a[k].Shape(), b[k].Shape(), "%s: shape of %d", what, k)
		diff, err := tensor.Sub(a[k], b[k])
		require.NoError(t, err)
		d2 += recSq(diff)
		a2 += recSq(a[k])
		b2 += recSq(b[k])
	}
	d, n := math.Sqrt(d2), math.Max(math.Sqrt(a2), math.Sqrt(b2))
	require.LessOrEqual(t, d, tol*n+1e-14, "%s: |a-b| = %g, |a| = %g, |b| = %g", what, d, math.Sqrt(a2), math.Sqrt(b2))
}

func recSq(x *tensor.Dense) float64 {
	v, err := tensor.Space{}.Inner(x, x)
	if err != nil {
		panic(err)
	}
	return v
}

// quadOp is the test op s = sum_j Re<w_j, y_j> + |y_j|^2 / 2, defined with its
// pullback ybar_j = sbar (w_j + y_j) recorded by einsum and accumulate ops (so it
// has every order): as the scalar on the outputs of an op, it makes the cotangent
// that reaches them depend on the leaves.
func recQuad(w []*tensor.Dense) cr.Op[*tensor.Dense] {
	return core.Define(core.Def[*tensor.Dense]{Name: "test_quad", Space: tensor.Space{}, Arity: len(w),
		Primal: func(y []*tensor.Dense) ([]*tensor.Dense, error) {
			s := 0.0
			for j, v := range y {
				a, err := tensor.Space{}.Inner(w[j], v)
				if err != nil {
					return nil, err
				}
				s += a + recSq(v)/2
			}
			return []*tensor.Dense{tensor.Scalar(s)}, nil
		},
		Pullback: func(t *core.Tape[*tensor.Dense], y, _, sbar []cr.NodeID) []cr.NodeID {
			out := make([]cr.NodeID, len(y))
			for j := range y {
				wy := t.Apply(cr.AddOp[*tensor.Dense](tensor.Space{}), y[j], t.Constant(w[j]))
				out[j] = t.Apply(einsum.Op(",...->..."), sbar[0], wy)
			}
			return out
		}})
}

// The scalar L on the outputs y_j of the op under test: seed is L = sum_j
// Re<w_j, y_j> (for one output, the VJP is the recorded sweep seeded with w, as
// GradGraphSeed), quad the quadOp.
const (
	recSeed = iota
	recQuadMode
)

// apply records op on the leaves and returns its outputs and the scalar L of mode
// on them, for w given or drawn.
func recApply(tp *core.Tape[*tensor.Dense], op cr.Op[*tensor.Dense], xs []cr.NodeID, w []*tensor.Dense, mode int, rng *rand.Rand) ([]cr.NodeID, cr.NodeID, []*tensor.Dense) {
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
		w = recRandLike(rng, vals)
	}
	if mode == recQuadMode {
		return ys, tp.Apply(recQuad(w), ys...), w
	}
	return ys, tp.Apply(recDot{w}, ys...), w
}

// hvp returns the second-order rule's H u at x: the tangent of the gradient of L
// along u, from a fresh tape.
func recHVP(t *testing.T, op cr.Op[*tensor.Dense], x, u, w []*tensor.Dense, mode int) []*tensor.Dense {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := make([]cr.NodeID, len(x))
	seeds := map[cr.NodeID]*tensor.Dense{}
	for k, v := range x {
		xs[k] = tp.Leaf(v)
		seeds[xs[k]] = u[k]
	}
	ys, l, _ := recApply(tp, op, xs, w, mode, nil)
	require.NoError(t, tp.Err())
	tan, err := tp.ForwardTangents(seeds)
	require.NoError(t, err)
	var gt *core.Gradients[*tensor.Dense]
	if mode == recSeed && len(ys) == 1 {
		_, gt, err = tp.BackwardWithTangentsSeed(ys[0], cr.Dual[*tensor.Dense]{Value: w[0]}, tan)
	} else {
		_, gt, err = tp.BackwardWithTangents(l, tan)
	}
	require.NoError(t, err)
	out := make([]*tensor.Dense, len(x))
	for k, id := range xs {
		out[k] = recOf(gt, id, x[k])
	}
	return out
}

// checkRecorded runs the recipe on op at x, with the scalar L of each mode on its
// outputs. maxOrder 0 means every order works; 1 that GradGraph returns an
// *cr.OrderError of order 2 naming the op; 2 that the recorded VJP works but a
// recorded sweep over it (order 3) returns an *cr.OrderError.
func checkRecorded(t *testing.T, rng *rand.Rand, op cr.Op[*tensor.Dense], x []*tensor.Dense, maxOrder int) {
	t.Helper()
	for mode, name := range []string{"seed", "quad"} {
		t.Run(name, func(t *testing.T) { checkRecordedMode(t, rng, op, x, maxOrder, mode) })
	}
}

func checkRecordedMode(t *testing.T, rng *rand.Rand, op cr.Op[*tensor.Dense], x []*tensor.Dense, maxOrder, mode int) {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := make([]cr.NodeID, len(x))
	for k, v := range x {
		xs[k] = tp.Leaf(v)
	}
	ys, l, w := recApply(tp, op, xs, nil, mode, rng)
	require.NoError(t, tp.Err())
	u, v, d := recRandLike(rng, x), recRandLike(rng, x), recRandLike(rng, x)
	// References first, before anything is recorded: the plain VJP and the
	// second-order rule's H u.
	var gr *core.Gradients[*tensor.Dense]
	var err error
	oneSeed := mode == recSeed && len(ys) == 1
	if oneSeed {
		gr, err = tp.BackwardSeed(ys[0], w[0])
	} else {
		gr, err = tp.Backward(l)
	}
	require.NoError(t, err)
	vjp := make([]*tensor.Dense, len(x))
	for k, id := range xs {
		vjp[k] = recOf(gr, id, x[k])
	}
	hu := recHVP(t, op, x, u, w, mode)

	// 1. The recorded VJP equals the pullback.
	var g []cr.NodeID
	if oneSeed {
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
		gv[k] = recValue(t, tp, id)
	}
	recClose(t, "recorded VJP vs pullback", gv, vjp, 1e-13)

	// 2. Its derivative along u, by a plain reverse sweep over it and by forward
	// tangents through it, is the second-order rule's H u.
	s := tp.Apply(recDot{u}, g...)
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
		rev[k] = recOf(gs, id, x[k])
		fwd[k] = recOf(tan, g[k], x[k])
	}
	recClose(t, "reverse over recorded VJP vs second-order rule", rev, hu, 1e-12)
	recClose(t, "forward over recorded VJP vs second-order rule", fwd, hu, 1e-12)

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
		hv[k] = recValue(t, tp, id)
	}
	recClose(t, "recorded HVP vs second-order rule", hv, hu, 1e-12)
	third := tp.Apply(recDot{v}, h...)
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
		for k, hk := range recHVP(t, op, xp, u, w, mode) {
			ip, err := tensor.Space{}.Inner(v[k], hk)
			require.NoError(t, err)
			f += ip
		}
		return f
	}
	fd := (F(1) - F(-1)) / 2e-4
	scale := 1.0
	for _, hk := range hu {
		scale += math.Sqrt(recSq(hk))
	}
	for name, grad := range map[string]interface {
		Of(cr.NodeID) (*tensor.Dense, bool)
	}{"reverse over recorded HVP": gt, "second-order sweep over recorded VJP": gst} {
		got := 0.0
		for k, id := range xs {
			ip, err := tensor.Space{}.Inner(d[k], recOf(grad, id, x[k]))
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

// checkFamilies runs the recipe on every sample of every family of reg. orderErrors
// lists the families whose rules have no recorded pullback, with the order at which
// GradGraph reports the *cr.OrderError (2: the op itself; 3: an op its recorded
// pullback uses); every other family must record its pullback and reach the
// fourth order.
func checkFamilies(t *testing.T, reg *cr.Registry[*tensor.Dense], rng *rand.Rand, orderErrors map[string]int) {
	t.Helper()
	for name := range orderErrors {
		_, ok := reg.Lookup(name)
		require.True(t, ok, "orderErrors names %s, which is not registered", name)
	}
	for _, e := range reg.Entries() {
		order, unsupported := orderErrors[e.Name]
		for _, s := range e.Samples(rng) {
			t.Run(e.Name+"/"+s.Name, func(t *testing.T) {
				in := make([]cr.NodeID, len(s.Inputs))
				for k := range in {
					in[k] = cr.NewNodeID(1, k)
				}
				rule, err := s.Op.Apply(in, s.Inputs, make([]*tensor.Dense, s.Op.NumOutputs()))
				require.NoError(t, err)
				_, records := rule.(cr.PullbackRecorder[*tensor.Dense])
				require.Equal(t, !unsupported || order > 2, records, "does the rule record its pullback?")
				maxOrder := 0
				if unsupported {
					maxOrder = order - 1
				}
				checkRecorded(t, rng, s.Op, s.Inputs, maxOrder)
			})
		}
	}
}

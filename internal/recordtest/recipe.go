package recordtest

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// The scalar L on the outputs y_j of the op under test: seed is L = sum_j
// Re<w_j, y_j> (for one output, the VJP is the recorded sweep seeded with w, as
// GradGraphSeed), quad the QuadOp.
const (
	modeSeed = iota
	modeQuad
)

// applyL records op on the leaves and returns its outputs and the scalar L of mode
// on them, for w given or drawn.
func applyL(tp *core.Tape[*tensor.Dense], op cr.Op[*tensor.Dense], xs []cr.NodeID, w []*tensor.Dense, mode int, rng *rand.Rand) ([]cr.NodeID, cr.NodeID, []*tensor.Dense) {
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
		w = RandLike(rng, vals)
	}
	if mode == modeQuad {
		return ys, tp.Apply(QuadOp(w), ys...), w
	}
	return ys, tp.Apply(DotOp(w...), ys...), w
}

// secondOrderHu returns the second-order rule's H u at x: the tangent of the
// gradient of L along u, from a fresh tape.
func secondOrderHu(t testing.TB, op cr.Op[*tensor.Dense], x, u, w []*tensor.Dense, mode int) []*tensor.Dense {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := leaves(tp, x)
	ys, l, _ := applyL(tp, op, xs, w, mode, nil)
	require.NoError(t, tp.Err())
	tan, err := tp.ForwardTangents(seedsOf(xs, u))
	require.NoError(t, err)
	var gt *core.Gradients[*tensor.Dense]
	if mode == modeSeed && len(ys) == 1 {
		_, gt, err = tp.BackwardWithTangentsSeed(ys[0], cr.Dual[*tensor.Dense]{Value: w[0]}, tan)
	} else {
		_, gt, err = tp.BackwardWithTangents(l, tan)
	}
	require.NoError(t, err)
	return ofAll(gt, xs, x)
}

// CheckOp runs the recipe on op at the inputs x, in one subtest for each scalar L
// on its outputs ("seed": the dot product with a random cotangent; "quad": QuadOp):
// the recorded VJP equals the pullback; its derivative along a random u, by a
// reverse sweep over it and by forward tangents through it, equals the
// second-order rule's H u; the recorded derivative of that (third order), by a
// reverse sweep and by the second-order sweep, matches central differences of the
// second-order rule; and a fourth recorded sweep goes through.
//
// maxOrder 0 means every order works; 1 that GradGraph returns a
// *chainrules.OrderError of order 2 naming the op; 2 that the recorded VJP works
// but a recorded sweep over it (order 3) returns a *chainrules.OrderError.
func CheckOp(t *testing.T, rng *rand.Rand, op cr.Op[*tensor.Dense], x []*tensor.Dense, maxOrder int) {
	t.Helper()
	for mode, name := range []string{"seed", "quad"} {
		t.Run(name, func(t *testing.T) { checkOpMode(t, rng, op, x, maxOrder, mode) })
	}
}

// checkOpMode is CheckOp with the scalar L of mode.
func checkOpMode(t testing.TB, rng *rand.Rand, op cr.Op[*tensor.Dense], x []*tensor.Dense, maxOrder, mode int) {
	t.Helper()
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xs := leaves(tp, x)
	ys, l, w := applyL(tp, op, xs, nil, mode, rng)
	require.NoError(t, tp.Err())
	u, v, d := RandLike(rng, x), RandLike(rng, x), RandLike(rng, x)
	// References first, before anything is recorded: the plain VJP and the
	// second-order rule's H u.
	var gr *core.Gradients[*tensor.Dense]
	var err error
	oneSeed := mode == modeSeed && len(ys) == 1
	if oneSeed {
		gr, err = tp.BackwardSeed(ys[0], w[0])
	} else {
		gr, err = tp.Backward(l)
	}
	require.NoError(t, err)
	vjp := ofAll(gr, xs, x)
	hu := secondOrderHu(t, op, x, u, w, mode)

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
	requireAllClose(t, "recorded VJP vs pullback", values(t, tp, g), vjp, 1e-13)

	// 2. Its derivative along u, by a plain reverse sweep over it and by forward
	// tangents through it, is the second-order rule's H u.
	s := tp.Apply(DotOp(u...), g...)
	require.NoError(t, tp.Err())
	gs, err := tp.Backward(s)
	require.NoError(t, err)
	tan, err := tp.ForwardTangents(seedsOf(xs, u))
	require.NoError(t, err)
	requireAllClose(t, "reverse over recorded VJP vs second-order rule", ofAll(gs, xs, x), hu, 1e-12)
	requireAllClose(t, "forward over recorded VJP vs second-order rule", ofAll(tan, g, x), hu, 1e-12)

	// 3. Third order: the recorded derivative of s, and the second-order sweep over
	// s, against central differences of the second-order rule.
	h, err := tp.GradGraph(s, xs...)
	if maxOrder == 2 {
		requireOrderError(t, err, "", 3)
		return
	}
	require.NoError(t, err)
	requireAllClose(t, "recorded HVP vs second-order rule", values(t, tp, h), hu, 1e-12)
	third := tp.Apply(DotOp(v...), h...)
	gt, err := tp.Backward(third)
	require.NoError(t, err)
	tv, err := tp.ForwardTangents(seedsOf(xs, v))
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
		for k, hk := range secondOrderHu(t, op, xp, u, w, mode) {
			ip, err := tensor.Space{}.Inner(v[k], hk)
			require.NoError(t, err)
			f += ip
		}
		return f
	}
	fd := (F(1) - F(-1)) / 2e-4
	scale := 1.0
	for _, hk := range hu {
		scale += math.Sqrt(SquaredNorm(hk))
	}
	for name, grad := range map[string]entries{"reverse over recorded HVP": gt, "second-order sweep over recorded VJP": gst} {
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

// leaves records the values x as leaves of tp.
func leaves(tp *core.Tape[*tensor.Dense], x []*tensor.Dense) []cr.NodeID {
	xs := make([]cr.NodeID, len(x))
	for k, v := range x {
		xs[k] = tp.Leaf(v)
	}
	return xs
}

// requireOrderError checks that err is a *cr.OrderError of the given order, naming
// op (if op is not empty).
func requireOrderError(t testing.TB, err error, op string, order int) {
	t.Helper()
	var oe *cr.OrderError
	require.True(t, errors.As(err, &oe), "want an *OrderError, got %v", err)
	require.ErrorIs(t, err, cr.ErrOrderNotSupported)
	require.Equal(t, order, oe.Order)
	if op != "" {
		require.Equal(t, op, oe.Op)
	}
}

// CheckFamilies registers a package's families with register on a fresh registry
// and runs CheckOp on every sample of every family, in a subtest named
// family/sample. orderErrors lists the families whose rules have no recorded
// pullback, with the order at which GradGraph reports the *chainrules.OrderError
// (2: the op itself; 3: an op its recorded pullback uses); every other family must
// record its pullback and reach the fourth order.
func CheckFamilies(t *testing.T, register func(*cr.Registry[*tensor.Dense]) error, rng *rand.Rand, orderErrors map[string]int) {
	t.Helper()
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, register(reg))
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
				CheckOp(t, rng, s.Op, s.Inputs, maxOrder)
			})
		}
	}
}

package nn_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Recorded pullbacks (chainrules.PullbackRecorder, used by core.Tape.GradGraph):
// for each family with a hand-written rule, at the registry's samples, the
// recorded VJP must equal Pullback, its derivative by the ordinary sweeps must
// equal the second-order rule, and a third derivative by forward over reverse
// through it must match finite differences.
//
// order3 would name, per input, an op that stops a recorded sweep of the recorded
// VJP (GradGraph twice: the third derivative recorded) with a *cr.OrderError, for
// the test to assert; nil means the sweep succeeds and its values are checked. It
// is nil everywhere: softmax, log_softmax and the losses record elementwise ops,
// clamp_tensor, sort and topk linear ones (where, sums, scatter_add), and all of
// them record their own pullbacks.
var recordedFamilies = []struct {
	family string
	order3 []string // per differentiable input, the last entry standing for the rest
}{
	{"softmax", nil},
	{"log_softmax", nil},
	{"cross_entropy", nil},
	{"cross_entropy_probs", nil},
	{"nll_loss", nil},
	{"clamp_tensor", nil},
	{"sort", nil},
	{"topk", nil},
}

func TestRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, nn.Register(reg))
	rng := rand.New(rand.NewPCG(7, 11))
	for _, f := range recordedFamilies {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			t.Run(f.family+"/"+s.Name, func(t *testing.T) {
				checkRecorded(t, rng, recCase{op: s.Op, inputs: s.Inputs, order3: f.order3})
			})
		}
	}
}

// Cases beyond the registry's samples: an input recorded as a constant (the rule
// leaves its cotangent out), 1-D inputs, a none reduction over k-dim rows, a 0-d
// sort, scalar bounds.
func TestRecordedPullbacksMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	f64 := func(s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	unif := func(s ...int) *tensor.Dense { return tensor.RandUniform(rng, tensor.Float64, 0, 1, s...) }
	sep := func(v ...float64) *tensor.Dense { return must(tensor.FromFloat64(v, len(v))) }
	cases := []recCase{
		{name: "cross_entropy_probs constant targets", op: nn.CrossEntropyProbsOp(nn.LabelSmoothing(0.1)),
			inputs: inputs(f64(3, 4), unif(3, 4)), consts: []bool{false, true}, order3: nil},
		{name: "cross_entropy_probs constant logits", op: nn.CrossEntropyProbsOp(nn.ClassWeights(1, 2, 0.5, 3)),
			inputs: inputs(f64(3, 4), unif(3, 4)), consts: []bool{true, false}, order3: nil},
		{name: "cross_entropy_probs [4] mean", op: nn.CrossEntropyProbsOp(), inputs: inputs(f64(4), unif(4)), order3: nil},
		{name: "cross_entropy [4 3 2] none smoothing", op: nn.CrossEntropyOp([]int{0, 2, 1, 1, 2, 0, 1, 0}, nn.WithReduction(nn.ReductionNone),
			nn.LabelSmoothing(0.25)), inputs: inputs(f64(4, 3, 2)), order3: nil},
		{name: "cross_entropy [3] none", op: nn.CrossEntropyOp([]int{1}, nn.WithReduction(nn.ReductionNone)), inputs: inputs(f64(3)), order3: nil},
		{name: "nll_loss sum ignore", op: nn.NLLLossOp([]int{0, 7, 2}, nn.IgnoreIndex(7), nn.WithReduction(nn.ReductionSum)),
			inputs: inputs(f64(3, 4)), order3: nil},
		{name: "softmax axis 0", op: nn.SoftmaxOp(0), inputs: inputs(f64(3, 2)), order3: nil},
		{name: "log_softmax [5]", op: nn.LogSoftmaxOp(-1), inputs: inputs(f64(5)), order3: nil},
		{name: "sort 0-d", op: nn.SortOp(0, false), inputs: inputs(tensor.Scalar(0.3)), order3: nil},
		{name: "topk [5] k 3", op: nn.TopKOp(3, 0, true), inputs: inputs(sep(0.1, 0.9, -0.5, 0.4, 1.3)), order3: nil},
		{name: "sort [2 3 4] axis 1", op: nn.SortOp(1, false), inputs: inputs(separated(rng, 2, 3, 4)), order3: nil},
		{name: "clamp_tensor scalar bounds", op: nn.ClampTensorOp,
			inputs: inputs(sep(-2, -0.3, 0.2, 1.7), tensor.Scalar(-1), tensor.Scalar(1)), order3: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRecorded(t, rng, c) })
	}
}

// The mean over no weight (every label ignored) divides by zero: Pullback gives
// every ignored row a zero cotangent, and so does the recorded pullback, NaN-free.
func TestRecordedCrossEntropyAllIgnored(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, op := range []cr.Op[*tensor.Dense]{
		nn.CrossEntropyOp([]int{-100, -100}, nn.IgnoreIndex(-100)),
		nn.NLLLossOp([]int{-100, -100}, nn.IgnoreIndex(-100)),
	} {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(tensor.RandN(rng, tensor.Float64, 2, 3))
		y := tp.Apply(op, x)
		g, err := tp.GradGraph(y, x)
		require.NoError(t, err)
		ref, err := tp.Backward(y)
		require.NoError(t, err)
		want, _ := ref.Of(x)
		require.Equal(t, make([]float64, 6), want.Float64s(), op.Name())
		require.Equal(t, want.Float64s(), value(t, tp, g[0]).Float64s(), op.Name())
	}
}

// Sort's indices carry no cotangent, and a loss of them alone gives x none.
func TestRecordedSortValuesOnly(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(must(tensor.FromFloat64([]float64{0.5, -1, 2}, 3)))
	ys := tp.ApplyMulti(nn.SortOp(0, true), x)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(permute.ReshapeOp(-1), ys[0]))
	g, err := tp.GradGraph(y, x)
	require.NoError(t, err)
	require.Equal(t, []float64{1, 1, 1}, value(t, tp, g[0]).Float64s())
}

// recCase is one check of a recorded pullback.
type recCase struct {
	name   string
	op     cr.Op[*tensor.Dense]
	inputs []*tensor.Dense
	consts []bool // inputs recorded as constants (nil: none)
	outs   []int  // the outputs that get a cotangent, flattened and concatenated when several (nil: output 0)
	// seed adjusts the random cotangent w given the outputs' values (nil: w
	// itself), for a cotangent that must be gauge-invariant; no finite differences
	// are taken then (the adjusted seed depends on x).
	seed func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense
	// order3 names, per differentiable input (the last entry standing for the
	// rest), the op of the *cr.OrderError that a recorded sweep of the input's
	// recorded VJP gets today (order 3); "" (or a nil order3) when it succeeds, and
	// then, when it succeeds for every input, its values are checked.
	order3 []string
}

// recorded is one recording: the inputs' nodes, the differentiable ones, the
// output and its cotangent seed (a leaf), the recorded VJP and the scalar
// s = sum_k Re<u_k, g_k>.
type recorded struct {
	tp        *core.Tape[*tensor.Dense]
	xs, wrt   []cr.NodeID
	wrtInputs []int
	out, seed cr.NodeID
	g         []cr.NodeID
	s         cr.NodeID
}

// record records c at the input values xv with the cotangent w and the
// directions us (one per differentiable input).
func record(t *testing.T, c recCase, xv []*tensor.Dense, w *tensor.Dense, us []*tensor.Dense) *recorded {
	t.Helper()
	r := &recorded{tp: core.NewTape[*tensor.Dense](tensor.Space{})}
	tp := r.tp
	for k, v := range xv {
		if c.consts != nil && c.consts[k] {
			r.xs = append(r.xs, tp.Constant(v))
			continue
		}
		id := tp.Leaf(v)
		r.xs = append(r.xs, id)
		r.wrt = append(r.wrt, id)
		r.wrtInputs = append(r.wrtInputs, k)
	}
	ys := tp.ApplyMulti(c.op, r.xs...)
	require.NoError(t, tp.Err())
	r.out = outputOf(tp, ys, c.outs)
	if w != nil {
		r.seed = tp.Leaf(w)
		var err error
		r.g, err = tp.GradGraphSeed(r.out, r.seed, r.wrt...)
		require.NoError(t, err)
		if us != nil {
			r.s = recordDot(tp, us, r.g)
		}
	}
	require.NoError(t, tp.Err())
	return r
}

// checkRecorded runs the checks on c.
func checkRecorded(t *testing.T, rng *rand.Rand, c recCase) {
	// The cotangent, shaped like the output, and the directions.
	r0 := record(t, c, c.inputs, nil, nil)
	outV := value(t, r0.tp, r0.out)
	w := tensor.RandN(rng, outV.DType(), outV.Shape()...)
	if c.seed != nil {
		ys := make([]*tensor.Dense, c.op.NumOutputs())
		all, err := cr.EvalMulti(c.op, c.inputs...)
		require.NoError(t, err)
		copy(ys, all)
		w = c.seed(ys, w)
	}
	var us, vs []*tensor.Dense
	for _, k := range r0.wrtInputs {
		x := c.inputs[k]
		us = append(us, tensor.RandN(rng, x.DType(), x.Shape()...))
		vs = append(vs, tensor.RandN(rng, x.DType(), x.Shape()...))
	}
	r := record(t, c, c.inputs, w, us)
	tp := r.tp

	// 1. The recorded VJP equals Pullback (through the ordinary sweep).
	ref, err := tp.BackwardSeed(r.out, w)
	require.NoError(t, err)
	for j, id := range r.wrt {
		requireNear(t, gradOf(ref, id, c.inputs[r.wrtInputs[j]]), value(t, tp, r.g[j]), 1e-12, "recorded VJP of input %d", r.wrtInputs[j])
	}

	// 2. Its derivative along u by the ordinary reverse sweep equals the
	// second-order rule (H u), and its derivative in the cotangent is J u.
	gr, err := tp.Backward(r.s)
	require.NoError(t, err)
	seeds := map[cr.NodeID]*tensor.Dense{}
	for j, id := range r.wrt {
		seeds[id] = us[j]
	}
	tan, err := tp.ForwardTangents(seeds)
	require.NoError(t, err)
	_, gt, err := tp.BackwardWithTangentsSeed(r.out, cr.Dual[*tensor.Dense]{Value: w}, tan)
	require.NoError(t, err)
	hu := make([]*tensor.Dense, len(r.wrt))
	for j, id := range r.wrt {
		x := c.inputs[r.wrtInputs[j]]
		hu[j] = gradOf(gr, id, x)
		requireNear(t, gradOf(gt, id, x), hu[j], 1e-10, "H u at input %d", r.wrtInputs[j])
	}
	ydot, ok := tan.Of(r.out)
	if !ok {
		ydot = tensor.New(w.DType(), w.Shape()...)
	}
	requireNear(t, ydot, gradOf(gr, r.seed, w), 1e-10, "J u")

	// 3. Third order by forward over reverse through the recorded VJP: the
	// derivative of H u along v, against central differences.
	if c.seed == nil {
		tan2, err := tp.ForwardTangents(seedsOf(r.wrt, vs))
		require.NoError(t, err)
		_, d3, err := tp.BackwardWithTangents(r.s, tan2)
		require.NoError(t, err)
		const h = 1e-4
		at := func(sign float64) []*tensor.Dense {
			xv := append([]*tensor.Dense(nil), c.inputs...)
			for j, k := range r.wrtInputs {
				xv[k] = must(tensor.AddScaled(c.inputs[k], sign*h, vs[j]))
			}
			rr := record(t, c, xv, w, us)
			g, err := rr.tp.Backward(rr.s)
			require.NoError(t, err)
			out := make([]*tensor.Dense, len(rr.wrt))
			for j, id := range rr.wrt {
				out[j] = gradOf(g, id, c.inputs[rr.wrtInputs[j]])
			}
			return out
		}
		plus, minus := at(1), at(-1)
		for j, id := range r.wrt {
			fd := tensor.Scale(must(tensor.Sub(plus[j], minus[j])), complex(1/(2*h), 0))
			requireNear(t, fd, gradOf(d3, id, c.inputs[r.wrtInputs[j]]), 1e-6, "third derivative at input %d", r.wrtInputs[j])
		}
	}

	// 4. Third order by a recorded sweep of the recorded VJP of each input:
	// today a *cr.OrderError naming the op that stops it, where order3 says so.
	var acc []cr.NodeID
	var ju cr.NodeID
	complete := true
	for j := range r.wrt {
		uc := tp.Constant(us[j])
		h, err := tp.GradGraphSeed(r.g[j], uc, append(append([]cr.NodeID(nil), r.wrt...), r.seed)...)
		if want := c.stopsAt(j); want != "" {
			var oe *cr.OrderError
			require.ErrorAs(t, err, &oe, "a recorded sweep of the recorded VJP of input %d", r.wrtInputs[j])
			require.ErrorIs(t, err, cr.ErrOrderNotSupported)
			require.Equal(t, want, oe.Op, "input %d", r.wrtInputs[j])
			require.Equal(t, 3, oe.Order, "input %d", r.wrtInputs[j])
			complete = false
			continue
		}
		require.NoError(t, err, "a recorded sweep of the recorded VJP of input %d", r.wrtInputs[j])
		if acc == nil {
			acc, ju = h[:len(r.wrt)], h[len(r.wrt)]
			continue
		}
		for m := range acc {
			acc[m] = tp.Apply(cr.AddOp[*tensor.Dense](tensor.Space{}), acc[m], h[m])
		}
		ju = tp.Apply(cr.AddOp[*tensor.Dense](tensor.Space{}), ju, h[len(r.wrt)])
	}
	if !complete || len(r.wrt) == 0 {
		return
	}
	require.NoError(t, tp.Err())
	for j := range acc {
		requireNear(t, hu[j], value(t, tp, acc[j]), 1e-10, "recorded H u at input %d", r.wrtInputs[j])
	}
	requireNear(t, ydot, value(t, tp, ju), 1e-10, "recorded J u")
}

// stopsAt returns the op that stops a recorded sweep of the recorded VJP of the
// j-th differentiable input today ("" if none).
func (c recCase) stopsAt(j int) string {
	switch {
	case len(c.order3) == 0:
		return ""
	case j < len(c.order3):
		return c.order3[j]
	}
	return c.order3[len(c.order3)-1]
}

// outputOf returns the output with the cotangent: output outs[0], or the
// concatenation of the flattened outputs outs (output 0 when outs is nil).
func outputOf(tp *core.Tape[*tensor.Dense], ys []cr.NodeID, outs []int) cr.NodeID {
	if len(outs) == 0 {
		return ys[0]
	}
	if len(outs) == 1 {
		return ys[outs[0]]
	}
	flat := make([]cr.NodeID, len(outs))
	for i, o := range outs {
		flat[i] = tp.Apply(permute.ReshapeOp(-1), ys[o])
	}
	return tp.Apply(index.ConcatOp(0), flat...)
}

// recordDot records sum_k Re<u_k, g_k> (u_k constants).
func recordDot(tp *core.Tape[*tensor.Dense], us []*tensor.Dense, g []cr.NodeID) cr.NodeID {
	var s cr.NodeID
	for k, u := range us {
		p := tp.Apply(elementwise.MulOp, tp.Constant(u.Conj()), g[k])
		if u.DType() == tensor.Complex128 {
			p = tp.Apply(elementwise.RealOp, p)
		}
		p = tp.Apply(reduce.SumOp(nil, false), p)
		if s.Valid() {
			p = tp.Apply(elementwise.AddOp, s, p)
		}
		s = p
	}
	return s
}

func seedsOf(ids []cr.NodeID, vs []*tensor.Dense) map[cr.NodeID]*tensor.Dense {
	m := map[cr.NodeID]*tensor.Dense{}
	for j, id := range ids {
		m[id] = vs[j]
	}
	return m
}

// gradOf returns the gradient of id, zeros like like when it is absent.
func gradOf(g *core.Gradients[*tensor.Dense], id cr.NodeID, like *tensor.Dense) *tensor.Dense {
	if v, ok := g.Of(id); ok {
		return v
	}
	return tensor.New(like.DType(), like.Shape()...)
}

func value(t *testing.T, tp *core.Tape[*tensor.Dense], id cr.NodeID) *tensor.Dense {
	t.Helper()
	v, err := tp.Value(id)
	require.NoError(t, err)
	return v
}

// requireClose requires |got - want| <= tol max(|want|, 1e-6) in the 2-norm.
func requireNear(t *testing.T, want, got *tensor.Dense, tol float64, msg string, args ...any) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape(), msg)
	a, b := want.AsComplex().Contiguous().Complex128s(), got.AsComplex().Contiguous().Complex128s()
	var num, den float64
	for i := range a {
		d := cmplx.Abs(a[i] - b[i])
		num += d * d
		den += cmplx.Abs(a[i]) * cmplx.Abs(a[i])
	}
	num, den = math.Sqrt(num), math.Sqrt(den)
	if !(num <= tol*max(den, 1e-6)) {
		require.Failf(t, "not close", "%s: |got - want| = %.3g, |want| = %.3g\nwant %v\ngot  %v", fmt.Sprintf(msg, args...), num, den, a, b)
	}
}

func inputs(x ...*tensor.Dense) []*tensor.Dense { return x }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// separated returns a tensor whose elements differ pairwise by at least 0.2.
func separated(rng *rand.Rand, shape ...int) *tensor.Dense {
	t := tensor.New(tensor.Float64, shape...)
	d := t.Float64s()
	for i, p := range rng.Perm(len(d)) {
		d[i] = 0.3*(float64(p)-float64(len(d))/2) + 0.05*rng.Float64()
	}
	return t
}

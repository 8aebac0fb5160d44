package recordtest

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Case is one check of a recorded pullback by CheckCase.
type Case struct {
	Name   string // the name of the caller's subtest (CheckCase does not read it)
	Op     cr.Op[*tensor.Dense]
	Inputs []*tensor.Dense
	Consts []bool // inputs recorded as constants (nil: none)
	Outs   []int  // the outputs that get a cotangent, flattened and concatenated when several (nil: output 0)
	// Seed adjusts the random cotangent w given the outputs' values (nil: w
	// itself), for a cotangent that must be gauge-invariant. Only the recorded VJP
	// is checked then: held fixed while x moves, the seed stops being
	// gauge-invariant, so the VJP's derivatives depend on the phases.
	Seed func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense
	// Order3 names, per differentiable input (the last entry standing for the
	// rest), the op of the *chainrules.OrderError that a recorded sweep of the
	// input's recorded VJP gets today (order 3); "" (or a nil Order3) when it
	// succeeds, and then, when it succeeds for every input, its values are checked.
	Order3 []string
	// OrderAt is the order that error reports, when not 3: 4 for a composite op,
	// whose body is one recorded level deeper.
	OrderAt int
	// FDStep is the step of the central differences of the third-order check
	// (0: 1e-4).
	FDStep float64
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
func record(t testing.TB, c Case, xv []*tensor.Dense, w *tensor.Dense, us []*tensor.Dense) *recorded {
	t.Helper()
	r := &recorded{tp: core.NewTape[*tensor.Dense](tensor.Space{})}
	tp := r.tp
	for k, v := range xv {
		if c.Consts != nil && c.Consts[k] {
			r.xs = append(r.xs, tp.Constant(v))
			continue
		}
		id := tp.Leaf(v)
		r.xs = append(r.xs, id)
		r.wrt = append(r.wrt, id)
		r.wrtInputs = append(r.wrtInputs, k)
	}
	ys := tp.ApplyMulti(c.Op, r.xs...)
	require.NoError(t, tp.Err())
	r.out = outputOf(tp, ys, c.Outs)
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

// CheckCase checks the recorded pullback of c.Op at c.Inputs, with a random
// cotangent w on the outputs c.Outs and random directions u, v of the
// differentiable inputs:
//
//  1. the recorded VJP (GradGraphSeed) equals Pullback, through the ordinary
//     sweep;
//  2. its derivative along u by the ordinary reverse sweep equals the second-order
//     rule's H u, and its derivative in the cotangent is J u;
//  3. the derivative of H u along v, by forward over reverse through the recorded
//     VJP, matches central differences;
//  4. a recorded sweep of each input's recorded VJP (third order) stops with the
//     *chainrules.OrderError that c.Order3 names, or, when none does for any
//     input, gives H u and J u again.
//
// With c.Seed set, only the first check runs.
func CheckCase(t testing.TB, rng *rand.Rand, c Case) {
	t.Helper()
	// The cotangent, shaped like the output, and the directions.
	r0 := record(t, c, c.Inputs, nil, nil)
	outV := Value(t, r0.tp, r0.out)
	w := tensor.RandN(rng, outV.DType(), outV.Shape()...)
	if c.Seed != nil {
		ys := make([]*tensor.Dense, c.Op.NumOutputs())
		all, err := cr.EvalMulti(c.Op, c.Inputs...)
		require.NoError(t, err)
		copy(ys, all)
		w = c.Seed(ys, w)
	}
	var us, vs []*tensor.Dense
	for _, k := range r0.wrtInputs {
		x := c.Inputs[k]
		us = append(us, tensor.RandN(rng, x.DType(), x.Shape()...))
		vs = append(vs, tensor.RandN(rng, x.DType(), x.Shape()...))
	}
	r := record(t, c, c.Inputs, w, us)
	tp := r.tp

	// 1. The recorded VJP equals Pullback (through the ordinary sweep).
	ref, err := tp.BackwardSeed(r.out, w)
	require.NoError(t, err)
	for j, id := range r.wrt {
		RequireNear(t, of(ref, id, c.Inputs[r.wrtInputs[j]]), Value(t, tp, r.g[j]), 1e-12, "recorded VJP of input %d", r.wrtInputs[j])
	}
	if c.Seed != nil {
		return
	}

	// 2. Its derivative along u by the ordinary reverse sweep equals the
	// second-order rule (H u), and its derivative in the cotangent is J u.
	gr, err := tp.Backward(r.s)
	require.NoError(t, err)
	tan, err := tp.ForwardTangents(seedsOf(r.wrt, us))
	require.NoError(t, err)
	_, gt, err := tp.BackwardWithTangentsSeed(r.out, cr.Dual[*tensor.Dense]{Value: w}, tan)
	require.NoError(t, err)
	hu := make([]*tensor.Dense, len(r.wrt))
	for j, id := range r.wrt {
		x := c.Inputs[r.wrtInputs[j]]
		hu[j] = of(gr, id, x)
		RequireNear(t, of(gt, id, x), hu[j], 1e-10, "H u at input %d", r.wrtInputs[j])
	}
	ydot := of(tan, r.out, w)
	RequireNear(t, ydot, of(gr, r.seed, w), 1e-10, "J u")

	// 3. Third order by forward over reverse through the recorded VJP: the
	// derivative of H u along v, against central differences.
	checkThird(t, c, r, w, us, vs)

	// 4. Third order by a recorded sweep of the recorded VJP of each input:
	// today a *cr.OrderError naming the op that stops it, where Order3 says so.
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
			require.Equal(t, max(c.OrderAt, 3), oe.Order, "input %d", r.wrtInputs[j])
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
		RequireNear(t, hu[j], Value(t, tp, acc[j]), 1e-10, "recorded H u at input %d", r.wrtInputs[j])
	}
	RequireNear(t, ydot, Value(t, tp, ju), 1e-10, "recorded J u")
}

// checkThird is CheckCase's third check: the derivative of H u along vs, by
// forward over reverse through r's recorded VJP, against central differences of
// H u from fresh recordings at x +- h vs.
func checkThird(t testing.TB, c Case, r *recorded, w *tensor.Dense, us, vs []*tensor.Dense) {
	t.Helper()
	tan2, err := r.tp.ForwardTangents(seedsOf(r.wrt, vs))
	require.NoError(t, err)
	_, d3, err := r.tp.BackwardWithTangents(r.s, tan2)
	require.NoError(t, err)
	h := c.FDStep
	if h == 0 {
		h = 1e-4
	}
	at := func(sign float64) []*tensor.Dense {
		xv := append([]*tensor.Dense(nil), c.Inputs...)
		for j, k := range r.wrtInputs {
			xv[k] = must(tensor.AddScaled(c.Inputs[k], sign*h, vs[j]))
		}
		rr := record(t, c, xv, w, us)
		g, err := rr.tp.Backward(rr.s)
		require.NoError(t, err)
		out := make([]*tensor.Dense, len(rr.wrt))
		for j, id := range rr.wrt {
			out[j] = of(g, id, c.Inputs[rr.wrtInputs[j]])
		}
		return out
	}
	plus, minus := at(1), at(-1)
	for j, id := range r.wrt {
		fd := tensor.Scale(must(tensor.Sub(plus[j], minus[j])), 1/(2*h))
		RequireNear(t, fd, of(d3, id, c.Inputs[r.wrtInputs[j]]), 1e-6, "third derivative at input %d", r.wrtInputs[j])
	}
}

// stopsAt returns the op that stops a recorded sweep of the recorded VJP of the
// j-th differentiable input today ("" if none).
func (c Case) stopsAt(j int) string {
	switch {
	case len(c.Order3) == 0:
		return ""
	case j < len(c.Order3):
		return c.Order3[j]
	}
	return c.Order3[len(c.Order3)-1]
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

// recordDot records sum_k Re<u_k, g_k> (u_k constants) with the primitive ops.
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

// seedsOf maps ids[j] to vs[j].
func seedsOf(ids []cr.NodeID, vs []*tensor.Dense) map[cr.NodeID]*tensor.Dense {
	m := map[cr.NodeID]*tensor.Dense{}
	for j, id := range ids {
		m[id] = vs[j]
	}
	return m
}

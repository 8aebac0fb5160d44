package linalg_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Recorded pullbacks (chainrules.PullbackRecorder, used by core.Tape.GradGraph) of
// the ops with hand-written rules, cholesky and solve_triangular, and of eigh and
// svd, whose fast first-order path records its own formula (V diag(wbar) V^H,
// U diag(Sbar) Vh) and otherwise the defined pullback. The checks (the same as
// package nn's): the recorded VJP equals Pullback; its derivative by the ordinary
// sweeps equals the second-order rule; a third derivative by forward over reverse
// through it matches finite differences; and a recorded sweep of the recorded VJP
// (order 3) matches the same derivatives (order3 would name an op that stops it
// with a *cr.OrderError: none does, since every op these pullbacks use records its
// own). Small matrices only (at most 5x5).

func TestRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, linalg.Register(reg))
	rng := rand.New(rand.NewPCG(5, 8))
	small := func(s cr.Sample[*tensor.Dense]) bool {
		for _, x := range s.Inputs {
			if sh := x.Shape(); len(sh) >= 2 && sh[len(sh)-1] > 5 {
				return false
			}
		}
		return true
	}
	var cases []recCase
	for _, f := range []struct {
		family string
		// Per input, the op that stops a recorded sweep of its recorded VJP today,
		// for float64 and complex128 input (nil: the family is not checked with
		// that dtype).
		real, cmplx []string
		orderAt     int
	}{
		// B's recorded cotangent is a solve_triangular of Xbar (summed over
		// broadcast dims); complex input conjugates A with elementwise.ConjOp.
		{"solve_triangular", []string{}, []string{}, 3},
		{"cholesky", []string{}, []string{}, 3},
		// A composite of two solve_triangular, which GradGraph differentiates
		// since solve_triangular records its pullback.
		{"cholesky_solve", []string{}, []string{}, 4},
	} {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			order3 := f.real
			if s.Inputs[0].DType() == tensor.Complex128 {
				order3 = f.cmplx
			}
			if small(s) && order3 != nil {
				cases = append(cases, recCase{name: f.family + "/" + s.Name, op: s.Op, inputs: s.Inputs, order3: order3, orderAt: f.orderAt})
			}
		}
	}
	// eigh and svd: the registry's samples of the plain multi-output ops (its
	// others are composites of gauge-invariant losses), with the cotangent on some
	// outputs: the eigenvalues (singular values) alone take the fast path; any
	// vector output, the defined pullback.
	for _, f := range []struct {
		family string
		outs   [][]int
	}{
		{"eigh", [][]int{{0}, {1}, {0, 1}}},
		{"svd", [][]int{{1}, {0}, {2}, {0, 1, 2}}},
	} {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			if s.Op.NumOutputs() == 1 || !small(s) {
				continue
			}
			for _, outs := range f.outs {
				cases = append(cases, recCase{name: fmt.Sprintf("%s/%s outputs %v", f.family, s.Name, outs), op: s.Op,
					inputs: s.Inputs, outs: outs, order3: nil})
			}
		}
	}
	// Complex eigh and svd: the values alone, and the vectors with a
	// gauge-invariant cotangent (Im diag(V^H Vbar) = 0).
	herm := hermitian(rng, 2, 3, 3)
	a := tensor.RandN(rng, tensor.Complex128, 4, 3)
	cases = append(cases,
		recCase{name: "eigh/complex128 w", op: linalg.EighOp(), inputs: in(herm), outs: []int{0}, order3: nil},
		recCase{name: "eigh/complex128 V, phase-invariant cotangent", op: linalg.EighOp(), inputs: in(herm), outs: []int{1},
			seed: func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense { return gaugeFree(ys[1], w) }, order3: nil},
		recCase{name: "svd/complex128 S", op: linalg.SVDOp(), inputs: in(a), outs: []int{1}, order3: nil},
		recCase{name: "svd/complex128 U, phase-invariant cotangent", op: linalg.SVDOp(), inputs: in(a), outs: []int{0},
			seed: func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense { return gaugeFree(ys[0], w) }, order3: nil},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRecorded(t, rng, c) })
	}
}

// At a repeated eigenvalue, a loss of the eigenvalues alone has a finite
// gradient, and the recorded one is the same (the fast path's formula): the
// defined pullback would divide by the zero gap.
func TestRecordedEighRepeatedEigenvalues(t *testing.T) {
	a := must(tensor.FromFloat64([]float64{2, 0, 0, 0, 2, 0, 0, 0, 5}, 3, 3))
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(a)
	ys := tp.ApplyMulti(linalg.EighOp(), x)
	seed := must(tensor.FromFloat64([]float64{1, 2, 3}, 3))
	g, err := tp.GradGraphSeed(ys[0], tp.Constant(seed), x)
	require.NoError(t, err)
	ref, err := tp.BackwardSeed(ys[0], seed)
	require.NoError(t, err)
	want, _ := ref.Of(x)
	got := value(t, tp, g[0])
	for _, v := range got.Float64s() {
		require.False(t, math.IsNaN(v))
	}
	requireNear(t, want, got, 1e-14, "recorded eigenvalue gradient")
}

// hermitian returns a batch of random Hermitian matrices.
func hermitian(rng *rand.Rand, shape ...int) *tensor.Dense {
	a := tensor.RandN(rng, tensor.Complex128, shape...)
	return tensor.Scale(must(tensor.Add(a, must(einsum.Eval("...ij->...ji", a.Conj())))), 0.5)
}

// gaugeFree returns w - V diag(i Im diag(V^H w)): a cotangent of the vectors V
// that does not see their phases.
func gaugeFree(v, w *tensor.Dense) *tensor.Dense {
	d := must(einsum.Eval("...ji,...ji->...i", v.Conj(), w)).Complex128s()
	for i, z := range d {
		d[i] = complex(0, imag(z))
	}
	sh := v.Shape()
	dv := must(tensor.FromComplex128(d, append(sh[:len(sh)-2:len(sh)-2], sh[len(sh)-1])...))
	return must(tensor.Sub(w, must(einsum.Eval("...ij,...j->...ij", v, dv))))
}

// recCase is one check of a recorded pullback.
type recCase struct {
	name   string
	op     cr.Op[*tensor.Dense]
	inputs []*tensor.Dense
	consts []bool // inputs recorded as constants (nil: none)
	outs   []int  // the outputs that get a cotangent, flattened and concatenated when several (nil: output 0)
	// seed adjusts the random cotangent w given the outputs' values (nil: w
	// itself), for a cotangent that must be gauge-invariant. Only the recorded VJP
	// is checked then: held fixed while x moves, the seed stops being
	// gauge-invariant, so the VJP's derivatives depend on the phases.
	seed func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense
	// order3 names, per differentiable input (the last entry standing for the
	// rest), the op of the *cr.OrderError that a recorded sweep of the input's
	// recorded VJP gets today (order 3); "" (or a nil order3) when it succeeds, and
	// then, when it succeeds for every input, its values are checked.
	order3 []string
	// orderAt is the order that error reports, when not 3: 4 for a composite op,
	// whose body is one recorded level deeper.
	orderAt int
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
	if c.seed != nil {
		return
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
	{
		tan2, err := tp.ForwardTangents(seedsOf(r.wrt, vs))
		require.NoError(t, err)
		_, d3, err := tp.BackwardWithTangents(r.s, tan2)
		require.NoError(t, err)
		const h = 2e-5
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
			require.Equal(t, max(c.orderAt, 3), oe.Order, "input %d", r.wrtInputs[j])
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

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

package core_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// Linear tensor ops whose values and cotangents alias their arguments, the worst
// case for an engine that must never write into storage it does not own.

// linRule is y = sum_k c[k] x_k; its pullback returns ybar itself (no copy) where
// c[k] = 1, a view of it, and the tangent likewise.
type linRule struct {
	in []cr.NodeID
	c  []float64
}

func (r *linRule) Inputs() []cr.NodeID { return r.in }

// scaled returns c v, or v itself (aliased) for c = 1.
func scaled(v *tensor.Dense, c float64) *tensor.Dense {
	if c == 1 {
		return v
	}
	return tensor.Scale(v, c)
}

func (r *linRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	for k, id := range r.in {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: id, Value: scaled(ybar[0], r.c[k])})
	}
	return dst, nil
}

func (r *linRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	var y *tensor.Dense
	for k, id := range r.in {
		v, ok := tan(id)
		if !ok {
			continue
		}
		if y == nil {
			y = scaled(v, r.c[k]) // aliased: the engine must not write into it
			continue
		}
		var err error
		if y, err = tensor.AddScaled(y, r.c[k], v); err != nil {
			return err
		}
	}
	ydot[0], has[0] = y, y != nil
	return nil
}

func (r *linRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	for k, id := range r.in {
		d := cr.Dual[*tensor.Dense]{Value: scaled(ct.Value, r.c[k]), HasTangent: ct.HasTangent}
		if ct.HasTangent {
			d.Tangent = scaled(ct.Tangent, r.c[k])
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: id, Cotangent: d})
	}
	return dst, nil
}

// linOp is the op of linRule. With one input and c = 1 its value is its input
// itself: a view.
func linOp(c ...float64) cr.Op[*tensor.Dense] {
	return cr.OpFunc[*tensor.Dense]{OpName: fmt.Sprintf("lin%v", c), F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y := scaled(x[0], c[0])
		for k := 1; k < len(x); k++ {
			var err error
			if y, err = tensor.AddScaled(y, c[k], x[k]); err != nil {
				return nil, nil, err
			}
		}
		return y, &linRule{in: append([]cr.NodeID(nil), in...), c: c}, nil
	}}
}

// linGraph is a random DAG of linear ops over leaves of shape [3], with fan-out
// (nodes read several times, also twice by one op), aliasing values and
// cotangents, and identity hooks on some nodes.
type linGraph struct {
	tp     *core.Tape[*tensor.Dense]
	ids    []cr.NodeID
	leaves int
	edges  [][]edge // edges[i]: the inputs of node i with their coefficients
}

type edge struct {
	j int
	c float64
}

func newLinGraph(rng *rand.Rand, nleaves, nops int) *linGraph {
	g := &linGraph{tp: newTensorTape(), leaves: nleaves}
	for range nleaves {
		g.ids = append(g.ids, g.tp.Leaf(tensor.RandN(rng, tensor.Float64, 3)))
		g.edges = append(g.edges, nil)
	}
	for range nops {
		n := 1 + rng.IntN(3)
		var in []cr.NodeID
		var c []float64
		var es []edge
		for range n {
			j := rng.IntN(len(g.ids))
			if rng.IntN(3) == 0 && len(in) > 0 { // the same input twice
				j = es[0].j
			}
			k := []float64{1, 1, 2, -0.5}[rng.IntN(4)]
			in, c, es = append(in, g.ids[j]), append(c, k), append(es, edge{j, k})
		}
		id := g.tp.Apply(linOp(c...), in...)
		if rng.IntN(4) == 0 {
			_ = g.tp.AddDualHook(id, func(ct cr.Dual[*tensor.Dense]) (cr.Dual[*tensor.Dense], error) { return ct, nil })
		}
		g.ids, g.edges = append(g.ids, id), append(g.edges, es)
	}
	return g
}

// coefficients returns d out / d node for every node: the graph is linear with
// scalar coefficients, so each cotangent is that number times the seed.
func (g *linGraph) coefficients(out int) []float64 {
	w := make([]float64, len(g.ids))
	w[out] = 1
	for i := out; i >= 0; i-- {
		for _, e := range g.edges[i] {
			w[e.j] += e.c * w[i]
		}
	}
	return w
}

func snapshot(vs ...*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(vs))
	for k, v := range vs {
		out[k] = v.Clone()
	}
	return out
}

func assertUnchanged(t *testing.T, before []*tensor.Dense, after []*tensor.Dense, what string) {
	t.Helper()
	for k := range before {
		require.Equal(t, before[k].Float64s(), after[k].Contiguous().Float64s(), "%s %d was modified", what, k)
	}
}

// Fan-out through pullbacks and tangents that return views: the sweeps never write
// into the seeds, the values, the cotangents they returned before (AllNodes), a
// LinearMap's arguments, or the recorded values.
func TestSweepsNeverMutateBorrowedStorage(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := newLinGraph(rng, 1+rng.IntN(3), 2+rng.IntN(12))
		require.NoError(t, g.tp.Err())
		out := len(g.ids) - 1
		values := make([]*tensor.Dense, len(g.ids))
		for i, id := range g.ids {
			values[i], _ = g.tp.Value(id)
		}
		valuesBefore := snapshot(values...)
		s := tensor.RandN(rng, tensor.Float64, 3)
		seedBefore := snapshot(s)

		res, err := g.tp.BackwardSeed(g.ids[out], s, core.AllNodes())
		require.NoError(t, err)
		w := g.coefficients(out)
		check := func(res *core.Gradients[*tensor.Dense]) {
			for i, id := range g.ids {
				v, ok := res.Of(id)
				if !ok {
					continue
				}
				for e, x := range v.Contiguous().Float64s() {
					require.InDelta(t, w[i]*seedBefore[0].Float64s()[e], x, 1e-12, "graph %d, node %d", seed, i)
				}
			}
		}
		check(res)
		first := res.Map()
		firstBefore := map[cr.NodeID][]float64{}
		for id, v := range first {
			firstBefore[id] = slicesClone(v.Contiguous().Float64s())
		}
		// A second sweep, and a second-order one, leave the first's results alone.
		res2, err := g.tp.BackwardSeed(g.ids[out], s, core.AllNodes())
		require.NoError(t, err)
		check(res2)
		dirs := map[cr.NodeID]*tensor.Dense{}
		for k := range g.leaves {
			dirs[g.ids[k]] = tensor.RandN(rng, tensor.Float64, 3)
		}
		dirsBefore := map[cr.NodeID][]float64{}
		for id, v := range dirs {
			dirsBefore[id] = slicesClone(v.Float64s())
		}
		tan, err := g.tp.ForwardTangents(dirs)
		require.NoError(t, err)
		_, _, err = g.tp.BackwardWithTangentsSeed(g.ids[out], cr.Dual[*tensor.Dense]{Value: s, Tangent: s, HasTangent: true}, tan, core.AllNodes())
		require.NoError(t, err)
		for id, v := range first {
			require.Equal(t, firstBefore[id], v.Contiguous().Float64s(), "graph %d: cotangent of %v was modified by a later sweep", seed, id)
		}
		for id, v := range dirs {
			require.Equal(t, dirsBefore[id], v.Float64s(), "graph %d: tangent seed modified", seed)
		}
		assertUnchanged(t, seedBefore, []*tensor.Dense{s}, "seed")
		assertUnchanged(t, valuesBefore, values, "value")
	}
}

func slicesClone(s []float64) []float64 { return append([]float64(nil), s...) }

// The same through Linearize: applying the map and its transpose never writes into
// the caller's arguments, and the transpose is the adjoint of the map.
func TestLinearMapNeverMutatesItsArguments(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		nleaves, nops := 1+rng.IntN(3), 2+rng.IntN(10)
		var g *linGraph
		x := make([]*tensor.Dense, nleaves)
		for k := range x {
			x[k] = tensor.RandN(rng, tensor.Float64, 3)
		}
		_, lin, err := core.Linearize(tensor.Space{}, func(tp *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
			g = &linGraph{tp: tp, ids: in, leaves: nleaves, edges: make([][]edge, nleaves)}
			r := rand.New(rand.NewPCG(seed, 12))
			for range nops {
				j, k := r.IntN(len(g.ids)), r.IntN(len(g.ids))
				id := tp.Apply(linOp(1, 1), g.ids[j], g.ids[k])
				g.ids, g.edges = append(g.ids, id), append(g.edges, []edge{{j, 1}, {k, 1}})
			}
			// Outputs out of recording order, one of them twice.
			n := len(g.ids)
			return []cr.NodeID{g.ids[n-1], g.ids[n-2], g.ids[n-1], g.ids[0]}
		}, x...)
		require.NoError(t, err)
		v := make([]*tensor.Dense, nleaves)
		for k := range v {
			v[k] = tensor.RandN(rng, tensor.Float64, 3)
		}
		w := make([]*tensor.Dense, 4)
		for k := range w {
			w[k] = tensor.RandN(rng, tensor.Float64, 3)
		}
		vBefore, wBefore := snapshot(v...), snapshot(w...)
		jv, err := lin.Apply(v...)
		require.NoError(t, err)
		jtw, err := lin.Transpose().Apply(w...)
		require.NoError(t, err)
		assertUnchanged(t, vBefore, v, "tangent")
		assertUnchanged(t, wBefore, w, "cotangent")
		// <w, J v> = <J^T w, v>.
		lhs, rhs := 0.0, 0.0
		for k := range w {
			d, _ := tensor.Dot(w[k], jv[k])
			lhs += real(d)
		}
		for k := range v {
			d, _ := tensor.Dot(jtw[k], v[k])
			rhs += real(d)
		}
		require.InDelta(t, lhs, rhs, 1e-9*(1+math.Abs(lhs)), "graph %d", seed)
		// Applying again gives the same, and leaves the earlier results alone.
		jtwBefore := snapshot(jtw...)
		jtw2, err := lin.Transpose().Apply(w...)
		require.NoError(t, err)
		assertUnchanged(t, jtwBefore, jtw2, "second VJP")
		assertUnchanged(t, jtwBefore, jtw, "first VJP")
		assertUnchanged(t, wBefore, w, "cotangent")
	}
}

// scalarDAG records a random DAG of smooth scalar ops with fan-out over n leaves
// and returns its output; hooks (observing only) sit on some nodes.
func scalarDAG(tp *core.Tape[float64], r *rand.Rand, x []cr.NodeID, nops int) cr.NodeID {
	ids := append([]cr.NodeID(nil), x...)
	for range nops {
		a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
		var id cr.NodeID
		switch r.IntN(5) {
		case 0:
			id = tp.Apply(sinOp, a)
		case 1:
			id = tp.Apply(mulOp, a, b)
		case 2:
			id = tp.Apply(mulOp, a, a)
		case 3:
			id = tp.Apply(scaleOp(0.7), tp.Apply(shiftOp(0.1), a))
		default:
			id = tp.Apply(cubeOp, tp.Apply(scaleOp(0.5), a))
		}
		if r.IntN(4) == 0 {
			_ = tp.AddDualHook(id, func(ct cr.Dual[float64]) (cr.Dual[float64], error) { return ct, nil })
		}
		ids = append(ids, id)
	}
	// The output reads several nodes, so that most of the DAG reaches it.
	out := ids[len(ids)-1]
	for range 3 {
		out = tp.Apply(mulOp, out, tp.Apply(sinOp, ids[r.IntN(len(ids))]))
	}
	return out
}

// Random DAGs with fan-out and hooks: the gradient matches central differences of
// the function, and the Hessian-vector product central differences of the gradient.
func TestRandomScalarDAGsMatchFiniteDifferences(t *testing.T) {
	for seed := range uint64(80) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n, nops := 1+rng.IntN(3), 3+rng.IntN(15)
		x0 := make([]float64, n)
		for k := range x0 {
			x0[k] = rng.Float64()*1.6 - 0.8
		}
		eval := func(x []float64) (*core.Tape[float64], []cr.NodeID, cr.NodeID) {
			tp := newTape()
			ids := make([]cr.NodeID, n)
			for k, v := range x {
				ids[k] = tp.Leaf(v)
			}
			out := scalarDAG(tp, rand.New(rand.NewPCG(seed, 4)), ids, nops)
			require.NoError(t, tp.Err())
			return tp, ids, out
		}
		grad := func(x []float64) []float64 {
			tp, ids, out := eval(x)
			g, err := tp.Backward(out)
			require.NoError(t, err)
			res := make([]float64, n)
			for k, id := range ids {
				res[k], _ = g.Of(id)
			}
			return res
		}
		value := func(x []float64) float64 {
			tp, _, out := eval(x)
			v, _ := tp.Value(out)
			return v
		}
		const h = 1e-5
		g := grad(x0)
		v := make([]float64, n)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		shifted := func(s float64) []float64 {
			y := make([]float64, n)
			for k := range y {
				y[k] = x0[k] + s*v[k]
			}
			return y
		}
		fd := (value(shifted(h)) - value(shifted(-h))) / (2 * h)
		gv := 0.0
		for k := range g {
			gv += g[k] * v[k]
		}
		require.InDelta(t, fd, gv, 1e-6*(1+math.Abs(fd)), "graph %d: <grad, v>", seed)

		tp, ids, out := eval(x0)
		seeds := map[cr.NodeID]float64{}
		for k, id := range ids {
			seeds[id] = v[k]
		}
		tan, err := tp.ForwardTangents(seeds)
		require.NoError(t, err)
		yd, _ := tan.Of(out)
		require.InDelta(t, gv, yd, 1e-12*(1+math.Abs(gv)), "graph %d: JVP", seed)
		_, hv, err := tp.BackwardWithTangents(out, tan)
		require.NoError(t, err)
		gp, gm := grad(shifted(h)), grad(shifted(-h))
		for k, id := range ids {
			got, _ := hv.Of(id)
			want := (gp[k] - gm[k]) / (2 * h)
			require.InDelta(t, want, got, 1e-5*(1+math.Abs(want)), "graph %d: (H v)[%d]", seed, k)
		}
	}
}

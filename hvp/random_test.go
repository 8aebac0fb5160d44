package hvp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Ops that are smooth on the whole real line and keep values moderate, so that
// finite differences of the gradient are accurate on random graphs.
var (
	smoothUnary = []cr.Op[*tensor.Dense]{ew.SinOp, ew.CosOp, ew.TanhOp, ew.SigmoidOp, ew.SoftplusOp,
		ew.AtanOp, ew.AsinhOp, ew.SquareOp, ew.ScaleOp(0.7), ew.ShiftOp(-0.3), ew.PowScalarOp(3), ew.ErfOp}
	boundedUnary = []cr.Op[*tensor.Dense]{ew.ExpOp, ew.CoshOp} // applied after tanh only
	smoothBinary = []cr.Op[*tensor.Dense]{ew.AddOp, ew.SubOp, ew.MulOp}
)

type rnode struct {
	id    cr.NodeID
	shape []int
}

// randomGraph returns a Func that builds a random DAG over two leaves of shapes
// [3 4] and [4]; the same seed gives the same graph.
func randomGraph(seed uint64) hvp.Func {
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		rng := rand.New(rand.NewPCG(seed, 99))
		nodes := []rnode{{x[0], []int{3, 4}}, {x[1], []int{4}}}
		pick := func() rnode { return nodes[rng.IntN(len(nodes))] }
		steps := 3 + rng.IntN(8)
		for range steps {
			var n rnode
			switch k := rng.IntN(10); {
			case k < 4:
				a := pick()
				n = rnode{t.Apply(smoothUnary[rng.IntN(len(smoothUnary))], a.id), a.shape}
			case k == 4:
				a := pick()
				th := t.Apply(ew.TanhOp, a.id)
				n = rnode{t.Apply(boundedUnary[rng.IntN(len(boundedUnary))], th), a.shape}
			case k < 7:
				a, b := pick(), pick()
				shape, err := tensor.BroadcastShapes(a.shape, b.shape)
				if err != nil {
					continue
				}
				n = rnode{t.Apply(smoothBinary[rng.IntN(len(smoothBinary))], a.id, b.id), shape}
			case k == 7:
				a := pick()
				if len(a.shape) == 0 {
					continue
				}
				ops := []cr.Op[*tensor.Dense]{reduce.SumOp([]int{-1}, false), reduce.MeanOp([]int{-1}, false),
					reduce.LogSumExpOp([]int{-1}, false)}
				n = rnode{t.Apply(ops[rng.IntN(len(ops))], a.id), a.shape[:len(a.shape)-1]}
			case k == 8:
				a, b := pick(), pick()
				if !slices.Equal(a.shape, []int{3, 4}) || !slices.Equal(b.shape, []int{3, 4}) {
					continue
				}
				n = rnode{t.Apply(einsum.Op("ij,kj->ik"), a.id, b.id), []int{3, 3}}
			default:
				a := pick()
				if len(a.shape) == 0 || a.shape[len(a.shape)-1] < 2 {
					continue
				}
				r := make([]index.Range, len(a.shape))
				for i := range r {
					r[i] = index.Range{Start: 0, Stop: index.End}
				}
				r[len(r)-1] = index.Range{Start: 1, Stop: index.End}
				s := slices.Clone(a.shape)
				s[len(s)-1]--
				n = rnode{t.Apply(index.SliceOp(r...), a.id), s}
			}
			nodes = append(nodes, n)
		}
		// A non-linear scalar of the last node, plus a term that keeps both leaves in.
		last := nodes[len(nodes)-1].id
		loss := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.TanhOp, last))
		keep := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, t.Apply(ew.MulOp, x[0], x[1])))
		return t.Apply(ew.AddOp, loss, keep)
	}
}

func TestRandomGraphsHVPMatchesFiniteDifferences(t *testing.T) {
	const graphs = 300
	for _, op := range slices.Concat(smoothUnary, boundedUnary, smoothBinary) {
		_, ok := ops.Default().Lookup(op.Name())
		require.True(t, ok, "op %s is registered", op.Name())
	}
	for g := range uint64(graphs) {
		f := randomGraph(g)
		rng := rand.New(rand.NewPCG(g, 1))
		x := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4), tensor.RandN(rng, tensor.Float64, 4)}
		v := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4), tensor.RandN(rng, tensor.Float64, 4)}
		_, hv, err := hvp.HVP(f, x, v)
		require.NoError(t, err, "graph %d", g)

		// Central differences of the gradient along v, 4th order.
		const h = 1e-3
		grads := make([][]*tensor.Dense, 4)
		for i, s := range []float64{-2, -1, 1, 2} {
			xs := make([]*tensor.Dense, 2)
			for k := range xs {
				xs[k], _ = tensor.AddScaled(x[k], s*h, v[k])
			}
			_, grads[i], err = hvp.Grad(f, xs)
			require.NoError(t, err)
		}
		for k := range x {
			got := floats(hv[k])
			scale := 1.0
			for _, g := range got {
				scale = math.Max(scale, math.Abs(g))
			}
			for i := range got {
				fd := (floats(grads[0][k])[i] - 8*floats(grads[1][k])[i] + 8*floats(grads[2][k])[i] - floats(grads[3][k])[i]) / (12 * h)
				if math.Abs(fd-got[i]) > 1e-6*scale {
					t.Fatalf("graph %d, input %d, element %d: HVP %.12g, finite differences %.12g", g, k, i, got[i], fd)
				}
			}
		}
	}
}

func ExampleHVP() {
	// f(x) = sum(sin(x) * exp(x)) has the diagonal Hessian 2 exp(x) cos(x).
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Apply(ew.SinOp, x[0]), t.Apply(ew.ExpOp, x[0])))
	}
	x, _ := tensor.FromFloat64([]float64{0, 1}, 2)
	v, _ := tensor.FromFloat64([]float64{1, 0}, 2)
	grad, hv, err := hvp.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
	if err != nil {
		panic(err)
	}
	fmt.Printf("grad = %.4f\nH v  = %.4f\n", grad[0].Float64s(), hv[0].Float64s())
	// Output:
	// grad = [1.0000 3.7560]
	// H v  = [2.0000 0.0000]
}

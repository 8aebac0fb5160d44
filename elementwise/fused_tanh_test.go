package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// mul3 rejects bad input with typed errors that name the op, never a panic.
func TestMul3BadInput(t *testing.T) {
	f := func(shape ...int) *tensor.Dense { return tensor.Ones(tensor.Float64, shape...) }
	c := tensor.Ones(tensor.Complex128, 2, 3)
	for _, tc := range []struct {
		name string
		x    []*tensor.Dense
		want error
	}{
		{"two inputs", []*tensor.Dense{f(2, 3), f(2, 3)}, cr.ErrInvalidArgument},
		{"four inputs", []*tensor.Dense{f(2, 3), f(2, 3), f(2, 3), f(2, 3)}, cr.ErrInvalidArgument},
		{"nil input", []*tensor.Dense{f(2, 3), nil, f(2, 3)}, cr.ErrInvalidArgument},
		{"complex input", []*tensor.Dense{f(2, 3), f(2, 3), c}, cr.ErrInvalidArgument},
		{"shapes differ", []*tensor.Dense{f(2, 3), f(3, 2), f(2, 3)}, cr.ErrShapeMismatch},
		{"no broadcasting", []*tensor.Dense{f(2, 3), f(2, 3), f(3)}, cr.ErrShapeMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := make([]cr.NodeID, len(tc.x))
			_, err := mul3Op{c: 2}.Apply(in, tc.x, make([]*tensor.Dense, 1))
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), "mul3")
		})
	}
}

// A cotangent or tangent of the wrong shape is an error of the rule, not a panic.
func TestMul3RuleBadCotangent(t *testing.T) {
	x := tensor.Ones(tensor.Float64, 2, 3)
	rule, err := mul3Op{c: 2}.Apply(make([]cr.NodeID, 3), []*tensor.Dense{x, x, x}, make([]*tensor.Dense, 1))
	require.NoError(t, err)
	_, err = rule.Pullback([]*tensor.Dense{tensor.Ones(tensor.Float64, 3, 2)}, []bool{true}, nil)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	err = rule.(cr.ForwardRule[*tensor.Dense]).Forward(func(cr.NodeID) (*tensor.Dense, bool) {
		return tensor.Ones(tensor.Float64, 6), true
	}, make([]*tensor.Dense, 1), make([]bool, 1))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
}

// tanh's derivatives to the fourth, recorded through tanh_backward and mul3, are
// those of the closed forms: with t = tanh x, tanh' = 1 - t², tanh" = -2 t (1 - t²),
// tanh"' = -2 (1 - t²)(1 - 3 t²) and tanh"" = 8 t (1 - t²)(2 - 3 t²). The recorded
// graph uses the fused ops (and not the products of the partials) at every order.
func TestTanhDerivativesThroughFusedOps(t *testing.T) {
	xs := []float64{-1.5, -0.3, 0, 0.4, 2}
	xv, _ := tensor.FromFloat64(xs, len(xs))
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(xv)
	ones := tape.Constant(tensor.Ones(tensor.Float64, len(xs)))
	d := tape.Apply(TanhOp, x)
	var derivs []cr.NodeID
	for range 4 {
		// x's elements are independent, so the gradient of sum(d) is d'.
		g, err := tape.GradGraphSeed(d, ones, x)
		require.NoError(t, err)
		d = g[0]
		derivs = append(derivs, d)
	}
	for order, id := range derivs {
		v, err := tape.Value(id)
		require.NoError(t, err)
		for i, x := range xs {
			th := math.Tanh(x)
			s := 1 - th*th
			want := [...]float64{s, -2 * th * s, -2 * s * (1 - 3*th*th), 8 * th * s * (2 - 3*th*th)}[order]
			require.InDelta(t, want, v.Float64s()[i], 1e-12, "order %d at x = %v", order+1, x)
		}
	}
	// The op names of the fourth derivative's graph.
	names := map[string]int{}
	seen := map[cr.NodeID]bool{}
	var walk func(id cr.NodeID)
	walk = func(id cr.NodeID) {
		if seen[id] {
			return
		}
		seen[id] = true
		name, err := tape.OpName(id)
		require.NoError(t, err)
		names[name]++
		in, err := tape.Inputs(id)
		require.NoError(t, err)
		for _, j := range in {
			walk(j)
		}
	}
	walk(derivs[3])
	require.Positive(t, names["mul3"], "mul3 recorded")
	require.Positive(t, names["tanh_backward"], "tanh_backward recorded")
	require.Zero(t, names["one_minus"], "no 1 - y² recorded from the partials")
}

// tanh_backward's fast second-order pullback and forward tangent (pull2, jvp1)
// give bit for bit what the generic loops give through D1 and D2, with and
// without each tangent, on same-shaped and broadcast operands.
func TestTanhBackwardFastSecondOrderMatchesGeneric(t *testing.T) {
	generic := tanhBackwardSpec
	generic.Real.pull2, generic.Real.jvp1 = nil, nil
	ops := []cr.Op[*tensor.Dense]{Binary("tanh_backward", tanhBackwardSpec), Binary("tanh_backward", generic)}
	rng := rand.New(rand.NewPCG(5, 6))
	y := tensor.RandN(rng, tensor.Float64, 7, 9)
	for _, gShape := range [][]int{{7, 9}, {9}, {7, 1}} {
		g := tensor.RandN(rng, tensor.Float64, gShape...)
		yd, gd := tensor.RandN(rng, tensor.Float64, 7, 9), tensor.RandN(rng, tensor.Float64, gShape...)
		w, wd := tensor.RandN(rng, tensor.Float64, 7, 9), tensor.RandN(rng, tensor.Float64, 7, 9)
		for mask := range 8 { // which of ydot, gdot, wdot are present
			var res [2][]float64
			for k, op := range ops {
				in := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
				out := make([]*tensor.Dense, 1)
				rule, err := op.Apply(in, []*tensor.Dense{y, g}, out)
				require.NoError(t, err)
				tan := func(id cr.NodeID) (*tensor.Dense, bool) {
					if id == in[0] && mask&1 != 0 {
						return yd, true
					}
					if id == in[1] && mask&2 != 0 {
						return gd, true
					}
					return nil, false
				}
				ct := []cr.Dual[*tensor.Dense]{{Value: w, Tangent: wd, HasTangent: mask&4 != 0}}
				c, err := cr.PullbackWithTangentsOf(rule, out, ct, []bool{true}, tan, nil)
				require.NoError(t, err)
				ydot := make([]*tensor.Dense, 1)
				has := make([]bool, 1)
				require.NoError(t, rule.(cr.ForwardRule[*tensor.Dense]).Forward(tan, ydot, has))
				var flat []float64
				if has[0] {
					flat = append(flat, ydot[0].Contiguous().Float64s()...)
				}
				for _, d := range c {
					flat = append(flat, d.Cotangent.Value.Contiguous().Float64s()...)
					if d.Cotangent.HasTangent {
						flat = append(flat, d.Cotangent.Tangent.Contiguous().Float64s()...)
					}
				}
				res[k] = flat
			}
			require.NotEmpty(t, res[0])
			require.Equal(t, len(res[1]), len(res[0]), "g %v, mask %d", gShape, mask)
			for i := range res[0] {
				require.Equal(t, math.Float64bits(res[1][i]), math.Float64bits(res[0][i]), "g %v, mask %d, element %d", gShape, mask, i)
			}
		}
	}
}

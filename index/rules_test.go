package index_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// ourRegistry returns a registry holding this package's families.
func ourRegistry(t *testing.T) *cr.Registry[*tensor.Dense] {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, index.Register(reg))
	require.ElementsMatch(t, []string{"slice", "narrow", "select", "diagonal", "gather", "index_select", "scatter_add",
		"concat", "stack", "split", "pad", "flip", "roll", "where", "tril", "triu"}, reg.Names())
	return reg
}

func TestRuletestRegistry(t *testing.T) {
	ruletest.CheckRegistry(t, tensor.Space{}, ourRegistry(t), ruletest.Config{FullJacobianMaxSize: 80, MinOrder: 4})
}

func ids(n int) []cr.NodeID {
	out := make([]cr.NodeID, n)
	for k := range out {
		out[k] = cr.NewNodeID(1, k)
	}
	return out
}

// apply applies op to x with fresh output slots and returns its first output.
func apply(op cr.Op[*tensor.Dense], in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	y := make([]*tensor.Dense, op.NumOutputs())
	rule, err := op.Apply(in, x, y)
	return y[0], rule, err
}

// forward returns the tangent of the one output of rule, and whether it is present.
func forward(rule cr.Rule[*tensor.Dense], of cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	ydot, has := make([]*tensor.Dense, 1), make([]bool, 1)
	err := rule.(cr.ForwardRule[*tensor.Dense]).Forward(of, ydot, has)
	return ydot[0], has[0], err
}

func inner(t *testing.T, a, b *tensor.Dense) float64 {
	t.Helper()
	v, err := tensor.Space{}.Inner(a, b)
	require.NoError(t, err)
	return v
}

// TestLinearIdentities checks at every registry sample the identities that make a
// linear op's rules right, exactly (no finite differences): the tangent is the op
// applied to the input tangents, <ybar, A v> = sum_k <A_k^* ybar, v_k>, and the
// second-order rule returns (A^* ybar, A^* ybardot).
func TestLinearIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sp := tensor.Space{}
	for _, e := range ourRegistry(t).Entries() {
		for _, s := range e.Samples(rng) {
			if s.Op.NumOutputs() != 1 {
				continue // multi-output ops: TestSplitLinearIdentities
			}
			t.Run(e.Name+"/"+s.Name, func(t *testing.T) {
				in := ids(len(s.Inputs))
				y, rule, err := apply(s.Op, in, s.Inputs)
				require.NoError(t, err)
				v := make([]*tensor.Dense, len(s.Inputs))
				tan := map[cr.NodeID]*tensor.Dense{}
				for k, x := range s.Inputs {
					v[k] = sp.Rand(x, rng)
					tan[in[k]] = v[k]
				}
				of := func(id cr.NodeID) (*tensor.Dense, bool) { d, ok := tan[id]; return d, ok }
				ydot, ok, err := forward(rule, of)
				require.NoError(t, err)
				require.True(t, ok)
				av, _, err := apply(s.Op, in, v)
				require.NoError(t, err)
				require.True(t, tensor.EqualApprox(ydot, av, 0, 0), "tangent %v, op(v) %v", ydot, av)

				ybar, ybardot := sp.Rand(y, rng), sp.Rand(y, rng)
				cs, err := rule.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil)
				require.NoError(t, err)
				require.Len(t, cs, len(s.Inputs))
				lhs, rhs := inner(t, ybar, ydot), 0.0
				for k, c := range cs {
					require.Equal(t, in[k], c.Node)
					require.Equal(t, s.Inputs[k].Shape(), c.Value.Shape())
					require.Equal(t, s.Inputs[k].DType(), c.Value.DType())
					rhs += inner(t, c.Value, v[k])
				}
				require.InDelta(t, lhs, rhs, 1e-12*(1+abs(lhs)))

				ds, err := rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
					Cotangents: []cr.Dual[*tensor.Dense]{{Value: ybar, Tangent: ybardot, HasTangent: true}},
					Has:        []bool{true},
					Outputs:    []cr.Dual[*tensor.Dense]{{Value: y, Tangent: ydot, HasTangent: ok}},
					TangentOf:  of,
				}, nil)
				require.NoError(t, err)
				cd, err := rule.Pullback([]*tensor.Dense{ybardot}, []bool{true}, nil)
				require.NoError(t, err)
				for k, d := range ds {
					require.True(t, tensor.EqualApprox(d.Cotangent.Value, cs[k].Value, 0, 0))
					require.True(t, d.Cotangent.HasTangent)
					require.True(t, tensor.EqualApprox(d.Cotangent.Tangent, cd[k].Value, 0, 0))
				}
			})
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// A tangent on only one input of a two-input op counts the other as zero.
func TestPartialTangents(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := tensor.RandN(rng, tensor.Float64, 2, 3), tensor.RandN(rng, tensor.Complex128, 1, 3)
	op := index.ConcatOp(0)
	in := ids(2)
	_, rule, err := apply(op, in, []*tensor.Dense{a, b})
	require.NoError(t, err)
	bd := tensor.RandN(rng, tensor.Complex128, 1, 3)
	ydot, ok, err := forward(rule, func(id cr.NodeID) (*tensor.Dense, bool) {
		if id == in[1] {
			return bd, true
		}
		return nil, false
	})
	require.NoError(t, err)
	require.True(t, ok)
	want, err := index.Concat(0, tensor.New(tensor.Float64, 2, 3), bd)
	require.NoError(t, err)
	require.True(t, tensor.EqualApprox(ydot, want, 0, 0))

	_, ok, err = forward(rule, func(cr.NodeID) (*tensor.Dense, bool) { return nil, false })
	require.NoError(t, err)
	require.False(t, ok)
}

// Cotangents and tangents of the wrong shape or of a complex dtype for a real op are
// errors, not panics.
func TestRuleInputErrors(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	y, rule, err := apply(index.SliceOp(index.All, index.Range{Stop: 2}), ids(1), []*tensor.Dense{x})
	require.NoError(t, err)
	for _, bad := range []*tensor.Dense{nil, tensor.New(tensor.Float64, 3, 2), tensor.New(tensor.Complex128, 2, 2)} {
		_, err := rule.Pullback([]*tensor.Dense{bad}, []bool{true}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
			Cotangents: []cr.Dual[*tensor.Dense]{{Value: tensor.New(tensor.Float64, 2, 2), Tangent: bad, HasTangent: true}},
			Has:        []bool{true},
			Outputs:    []cr.Dual[*tensor.Dense]{{Value: y}},
		}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	}
	for _, bad := range []*tensor.Dense{nil, tensor.New(tensor.Float64, 3, 2), tensor.New(tensor.Complex128, 2, 3)} {
		_, _, err := forward(rule, func(cr.NodeID) (*tensor.Dense, bool) { return bad, true })
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	}
}

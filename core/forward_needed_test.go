package core_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestForwardTangentsFor checks that the forward sweep for a second-order sweep
// skips the tangents no second-order pullback reads (those of affine ops whose
// results feed affine ops only) and that the Hessian-vector product is the one the
// full forward sweep gives: on kmeans' cost, where the n × k sums, scale,
// difference and minimum are affine, and on f = sum exp(3 (x - 1)), where the
// affine ops feed exp, whose second-order pullback reads their tangent.
func TestForwardTangentsFor(t *testing.T) {
	pv, err := tensor.FromFloat64([]float64{0, 0, 1, 0, 0, 1, 1, 1, 0.4, 0.6}, 5, 2)
	require.NoError(t, err)
	cv, err := tensor.FromFloat64([]float64{0.1, 0.2, 0.9, 0.8, 0.3, 0.9}, 3, 2)
	require.NoError(t, err)
	dv, err := tensor.FromFloat64([]float64{1, -0.5, 0.25, 2, -1, 0.5}, 3, 2)
	require.NoError(t, err)
	type graph struct {
		out     cr.NodeID
		skipped []cr.NodeID // tangents ForwardTangentsFor leaves absent
		kept    []cr.NodeID // tangents it computes
	}
	for _, c := range []struct {
		name  string
		build func(tp *core.Tape[*tensor.Dense], x cr.NodeID) graph
	}{
		{"kmeans", func(tp *core.Tape[*tensor.Dense], c cr.NodeID) graph {
			pts := tp.Constant(pv)
			p2 := tp.Apply(reduce.SumOp([]int{1}, true), tp.Apply(elementwise.SquareOp, pts))
			sq := tp.Apply(elementwise.SquareOp, c)
			c2 := tp.Apply(permute.ReshapeOp(1, 3), tp.Apply(reduce.SumOp([]int{1}, false), sq))
			pc := tp.Apply(nn.MatmulOp, pts, tp.Apply(permute.TransposeOp(0, 1), c))
			sum := tp.Apply(elementwise.AddOp, p2, c2)
			scaled := tp.Apply(elementwise.ScaleFloat64Op(2), pc)
			dist := tp.Apply(elementwise.SubOp, sum, scaled)
			m := tp.Apply(reduce.MinOp([]int{1}, false), dist)
			out := tp.Apply(reduce.SumOp(nil, false), m)
			return graph{out: out, skipped: []cr.NodeID{sum, scaled, dist, m, out}, kept: []cr.NodeID{sq, pc}}
		}},
		{"affine into exp", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) graph {
			u := tp.Apply(elementwise.ScaleFloat64Op(3), tp.Apply(elementwise.ShiftOp(-1), x))
			e := tp.Apply(elementwise.ExpOp, u)
			out := tp.Apply(reduce.SumOp(nil, false), e)
			return graph{out: out, skipped: []cr.NodeID{out}, kept: []cr.NodeID{u, e}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hvpWith := func(needed bool) (*core.Tangents[*tensor.Dense], []float64, graph) {
				tp := core.NewTape[*tensor.Dense](tensor.Space{})
				x := tp.Leaf(cv)
				g := c.build(tp, x)
				seeds := map[cr.NodeID]*tensor.Dense{x: dv}
				var tan *core.Tangents[*tensor.Dense]
				var err error
				if needed {
					tan, err = tp.ForwardTangentsFor(g.out, seeds)
				} else {
					tan, err = tp.ForwardTangents(seeds)
				}
				require.NoError(t, err)
				_, gd, err := tp.BackwardWithTangents(g.out, tan)
				require.NoError(t, err)
				hv, ok := gd.Of(x)
				require.True(t, ok)
				return tan, hv.Float64s(), g
			}
			_, want, _ := hvpWith(false)
			tan, got, g := hvpWith(true)
			assert.InDeltaSlice(t, want, got, 1e-12)
			for _, id := range g.skipped {
				_, ok := tan.Of(id)
				assert.False(t, ok, "tangent of node %v computed", id)
			}
			for _, id := range g.kept {
				_, ok := tan.Of(id)
				assert.True(t, ok, "tangent of node %v skipped", id)
			}
		})
	}
}

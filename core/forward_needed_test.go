package core_test

import (
	"math"
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
// skips the tangents no second-order pullback reads (those of ops whose results
// feed affine ops only, and the outputs of rules that read input tangents only)
// and that the Hessian-vector product is the one the
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
			ct := tp.Apply(permute.TransposeOp(0, 1), c)
			pc := tp.Apply(nn.MatmulOp, pts, ct)
			sum := tp.Apply(elementwise.AddOp, p2, c2)
			scaled := tp.Apply(elementwise.ScaleOp(2), pc)
			dist := tp.Apply(elementwise.SubOp, sum, scaled)
			m := tp.Apply(reduce.MinOp([]int{1}, false), dist)
			out := tp.Apply(reduce.SumOp(nil, false), m)
			// The matrix product and the square read their operands' tangents
			// only (chainrules.InputTangentsOnly): Cᵀ's is computed, not theirs.
			return graph{out: out, skipped: []cr.NodeID{sq, pc, sum, scaled, dist, m, out}, kept: []cr.NodeID{ct}}
		}},
		{"affine into exp", func(tp *core.Tape[*tensor.Dense], x cr.NodeID) graph {
			u := tp.Apply(elementwise.ScaleOp(3), tp.Apply(elementwise.ShiftOp(-1), x))
			e := tp.Apply(elementwise.ExpOp, u)
			out := tp.Apply(reduce.SumOp(nil, false), e)
			return graph{out: out, skipped: []cr.NodeID{e, out}, kept: []cr.NodeID{u}}
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

// expY is y = exp(x) with a second-order pullback written from y's tangent,
// xbardot = ybardot y + ybar ydot, which reads SecondOrderArgs.Outputs: it does
// not implement chainrules.InputTangentsOnly.
type expY struct{}

func (expY) Name() string    { return "test_exp_y" }
func (expY) NumOutputs() int { return 1 }
func (expY) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	v, err := elementwise.Exp(x[0])
	y[0] = v
	return &expYRule{in: in[:1:1], y: v}, err
}

type expYRule struct {
	in []cr.NodeID
	y  *tensor.Dense
}

func (r *expYRule) Inputs() []cr.NodeID { return r.in }
func (r *expYRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	v, err := elementwise.Mul(ybar[0], r.y)
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: v}), err
}
func (r *expYRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	if xdot, ok := tangentOf(r.in[0]); ok {
		v, err := elementwise.Mul(xdot, r.y)
		ydot[0], has[0] = v, true
		return err
	}
	return nil
}
func (r *expYRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	xbar, err := elementwise.Mul(ct.Value, r.y)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: xbar}
	if ct.HasTangent {
		if d.Tangent, err = elementwise.Mul(ct.Tangent, r.y); err != nil {
			return dst, err
		}
		d.HasTangent = true
	}
	if o := a.Outputs[0]; o.HasTangent {
		term, err := elementwise.Mul(ct.Value, o.Tangent)
		if err != nil {
			return dst, err
		}
		if d.HasTangent {
			term, err = elementwise.Add(d.Tangent, term)
			if err != nil {
				return dst, err
			}
		}
		d.Tangent, d.HasTangent = term, true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d}), nil
}

// TestForwardTangentsForOutputs checks that a rule whose second-order pullback
// reads its output's tangent (no chainrules.InputTangentsOnly) gets it: for
// f = sum exp(3x), H v = 9 exp(3x) v.
func TestForwardTangentsForOutputs(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{0.5, -1, 0.25}, 3)
	vv, _ := tensor.FromFloat64([]float64{1, 2, -1}, 3)
	x := tp.Leaf(xv)
	y := tp.Apply(expY{}, tp.Apply(elementwise.ScaleOp(3), x))
	out := tp.Apply(reduce.SumOp(nil, false), y)
	tan, err := tp.ForwardTangentsFor(out, map[cr.NodeID]*tensor.Dense{x: vv})
	require.NoError(t, err)
	_, ok := tan.Of(y)
	assert.True(t, ok, "the output tangent the rule reads is computed")
	_, gd, err := tp.BackwardWithTangents(out, tan)
	require.NoError(t, err)
	hv, _ := gd.Of(x)
	for i, v := range xv.Float64s() {
		want := 9 * math.Exp(3*v) * vv.Float64s()[i]
		assert.InDelta(t, want, hv.Float64s()[i], 1e-12*math.Abs(want))
	}
}

package core_test

import (
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// A straight-through estimator: the primal rounds down, the pullback passes the
// cotangent through unchanged (xbar = ybar), as if y = x. The engine derives the
// forward tangent (ydot = xdot) and the second-order rule from that pullback.
func ExampleDefine() {
	floorST := core.Define(core.Def[float64]{Name: "floor_st", Space: cr.Float64Space{}, Arity: 1,
		Primal: func(x []float64) ([]float64, error) { return []float64{math.Floor(x[0])}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{ybar[0]}
		}})
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(2.7)
	y := t.Apply(floorST, x)
	loss := t.Apply(cubeOp, y) // y^3, so d loss/dx = 3 floor(x)^2 through the estimator
	g, err := t.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := t.Value(y)
	dx, _ := g.Of(x)
	tan, _ := t.ForwardTangents(map[cr.NodeID]float64{x: 1})
	jv, _ := tan.Of(loss)
	fmt.Println(v, dx, jv)
	// Output: 2 12 12
}

// A composite op: sinh(x) = (e^x - e^-x)/2 recorded from other ops. Its gradient
// and Hessian-vector product come from the recording; the tape shows one node.
func ExampleComposite_secondOrder() {
	sinh := core.Composite("sinh", cr.Float64Space{}, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		neg := t.Apply(expOp, t.Apply(scaleOp(-1), x[0]))
		return []cr.NodeID{t.Apply(scaleOp(0.5), t.Apply(addDef, t.Apply(expOp, x[0]), t.Apply(scaleOp(-1), neg)))}
	})
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(0)
	y := t.Apply(sinh, x)
	tan, _ := t.ForwardTangents(map[cr.NodeID]float64{x: 1})
	g, hv, err := t.BackwardWithTangents(y, tan)
	if err != nil {
		fmt.Println(err)
		return
	}
	dx, _ := g.Of(x)
	h, _ := hv.Of(x)
	name, _ := t.OpName(y)
	fmt.Println(t.Len(), name, dx, h) // sinh'(0) = cosh(0) = 1, sinh''(0) = 0
	// Output: 2 sinh 1 0
}

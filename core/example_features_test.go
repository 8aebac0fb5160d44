package core_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// The ops in these examples (sinOp, mulOp, cubeOp, logOp, sqrtOp, scaleOp) are
// hand-written float64 ops with first- and second-order rules; see
// scalarops_test.go.

func ExampleTape_NoGrad() {
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(2)
	var stop cr.NodeID
	t.NoGrad(func() {
		stop = t.Apply(cubeOp, x) // 8, detached: a stop-gradient
	})
	y := t.Apply(mulOp, stop, x) // y = stop(x^3) * x
	g, _ := t.Backward(y)
	dx, _ := g.Of(x)
	fmt.Println(dx, t.RequiresGrad(stop))
	// Output: 8 false
}

func ExampleTape_AddHook() {
	// Gradient clipping: the cotangent of u = 3x is clipped to [-1, 1].
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(2)
	u := t.Apply(scaleOp(3), x)
	y := t.Apply(mulOp, u, u) // ybar at u is 2u = 12
	_ = t.AddHook(u, func(ubar float64) (float64, error) {
		fmt.Println("ubar", ubar)
		return max(-1, min(1, ubar)), nil
	})
	g, _ := t.Backward(y)
	dx, _ := g.Of(x)
	fmt.Println("dy/dx", dx)
	// Output:
	// ubar 12
	// dy/dx 3
}

func ExampleTape_AddDualHook() {
	// A hook that scales the cotangent by 1/2, in the form the second-order sweep
	// differentiates: the Hessian-vector product is halved too. f = x^3 at x = 2.
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(2)
	y := t.Apply(cubeOp, x)
	_ = t.AddDualHook(y, func(ct cr.Dual[float64]) (cr.Dual[float64], error) {
		ct.Value /= 2
		ct.Tangent /= 2
		return ct, nil
	})
	tan, _ := t.ForwardTangents(map[cr.NodeID]float64{x: 1})
	g, hv, _ := t.BackwardWithTangents(y, tan)
	dx, _ := g.Of(x)
	h, _ := hv.Of(x)
	fmt.Println(dx, h) // 3x^2/2 and 6x/2
	// Output: 6 6
}

func ExampleTape_DetectAnomaly() {
	t := core.NewTape[float64](cr.Float64Space{})
	_ = t.DetectAnomaly(true)
	x := t.Leaf(0)
	y := t.Apply(sinOp, t.Apply(sqrtOp, x)) // finite, but d sqrt/dx = +Inf at 0
	_, err := t.Backward(y)
	var oe *cr.OpError
	if errors.As(err, &oe) {
		fmt.Println(errors.Is(err, cr.ErrNonFinite), oe.Op, oe.Node, oe.Phase)
		fmt.Println(strings.Contains(err.Error(), "example_features_test.go:"))
	}
	// Output:
	// true sqrt %1 pullback
	// true
}

func ExampleTape_Checkpoint() {
	// sin(sin(sin(x))) as one node: its two inner values are recomputed when the
	// sweep needs them, not kept.
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(0.5)
	y := t.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
		return sub.Apply(sinOp, sub.Apply(sinOp, sub.Apply(sinOp, in[0])))
	}, x)
	g, _ := t.Backward(y)
	dx, _ := g.Of(x)
	s1 := math.Sin(0.5)
	s2 := math.Sin(s1)
	fmt.Println(t.Len(), math.Abs(dx-math.Cos(s2)*math.Cos(s1)*math.Cos(0.5)) < 1e-15)
	// Output: 2 true
}

func ExampleTape_WriteDOT() {
	t := core.NewTape[float64](cr.Float64Space{})
	x, c := t.Leaf(1), t.Constant(2)
	t.Apply(mulOp, t.Apply(sinOp, x), c)
	_ = t.WriteDOT(os.Stdout) // pipe into `dot -Tsvg`
	// Output:
	// digraph tape {
	// 	node [shape=box, fontname="monospace"];
	// 	n0 [label="%0 leaf\nfloat64[]", style=filled, fillcolor="#cfe2f3"];
	// 	n1 [label="%1 constant\nfloat64[]", style=dashed];
	// 	n2 [label="%2 sin\nfloat64[]"];
	// 	n0 -> n2;
	// 	n3 [label="%3 mul\nfloat64[]"];
	// 	n2 -> n3 [label="0"];
	// 	n1 -> n3 [label="1"];
	// }
}

func ExampleLinearize() {
	// f(x, z) = x^3 z at (2, 5): J = [3x^2 z, x^3] = [60, 8].
	f := func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(mulOp, t.Apply(cubeOp, in[0]), in[1])}
	}
	y, jvp, _ := core.Linearize[float64](cr.Float64Space{}, f, 2, 5)
	jv, _ := jvp.Apply(1, 1)             // J v
	jtw, _ := jvp.Transpose().Apply(0.5) // J^T w
	fmt.Println(y, jv, jtw)
	// Output: [40] [68] [30 4]
}

// Tapes are not safe for concurrent use, but separate tapes are independent: one
// tape per goroutine. A Registry may be shared.
func ExampleNewTape_parallel() {
	var wg sync.WaitGroup
	grads := make([]float64, 4)
	for k := range grads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := core.NewTape[float64](cr.Float64Space{})
			x := t.Leaf(float64(k))
			g, _ := t.Backward(t.Apply(cubeOp, x))
			grads[k], _ = g.Of(x)
		}()
	}
	wg.Wait()
	fmt.Println(grads)
	// Output: [0 3 12 27]
}

package elementwise_test

import (
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// The package documentation's first program: ops recorded on a tape (w broadcasts
// along the rows of x), and a function of the same name without one.
func Example_recording() {
	xv, _ := tensor.FromFloat64([]float64{0, 1, 2, 3}, 2, 2)
	wv, _ := tensor.FromFloat64([]float64{1, -1}, 2)
	ybar := tensor.Ones(tensor.Float64, 2, 2)

	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x, w := tape.Leaf(xv), tape.Leaf(wv)
	y := tape.Apply(elementwise.MulOp, tape.Apply(elementwise.TanhOp, x), w) // w broadcasts
	g, err := tape.BackwardSeed(y, ybar)

	z, err := elementwise.Exp(xv) // no tape

	gw, _ := g.Of(w)
	fmt.Printf("%.4f %.4f %v\n", gw.Float64s(), z.Float64s(), err)
	// Output:
	// [0.9640 1.7566] [1.0000 2.7183 7.3891 20.0855] <nil>
}

// The package documentation's softplus, built with Unary and checked.
func ExampleUnary_softplus() {
	softplus := elementwise.Unary("softplus", elementwise.UnarySpec{Real: elementwise.Func1[float64]{
		F:  func(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) },
		D1: func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) },
		D2: func(x, _ float64) float64 { s := 1 / (1 + math.Exp(-x)); return s * (1 - s) },
	}})
	x, _ := tensor.FromFloat64([]float64{-30, -1, 0, 2, 40}, 5)
	err := ruletest.Verify(tensor.Space{}, softplus, []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 16})
	fmt.Println("rules verified:", err == nil)
	// Output:
	// rules verified: true
}

// The package documentation's cube, whose derivative is an expression of ops, so
// that recorded backward sweeps (GradGraph) differentiate it to any order.
func ExampleUnary_deriv() {
	cube := elementwise.Unary("cube", elementwise.UnarySpec{
		Real: elementwise.Func1[float64]{
			F:  func(x float64) float64 { return x * x * x },
			D1: func(x, _ float64) float64 { return 3 * x * x },
			D2: func(x, _ float64) float64 { return 6 * x },
		},
		Deriv: func(r cr.Recorder[*tensor.Dense], x, _ cr.NodeID) (cr.NodeID, error) {
			return r.Apply(elementwise.ScaleOp(3), r.Apply(elementwise.SquareOp, x)), nil // 3x²
		},
	})
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.Scalar(2))
	d := tape.Apply(cube, x)
	for order := 1; order <= 4; order++ {
		g, err := tape.GradGraph(d, x) // the derivative of d, recorded on the tape
		if err != nil {
			fmt.Println(err)
			return
		}
		d = g[0]
		v, _ := tape.Value(d)
		fmt.Printf("order %d: %g\n", order, v.Float64s()[0])
	}
	// Output:
	// order 1: 12
	// order 2: 12
	// order 3: 6
	// order 4: 0
}

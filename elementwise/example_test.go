package elementwise_test

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// The gradient of sum(tanh(x) * w) with w broadcast over the rows of x.
func Example() {
	xv, _ := tensor.FromFloat64([]float64{0, 0.5, -1, 2}, 2, 2)
	wv, _ := tensor.FromFloat64([]float64{1, -2}, 2)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x, w := tape.Leaf(xv), tape.Leaf(wv)
	y := tape.Apply(elementwise.MulOp, tape.Apply(elementwise.TanhOp, x), w)
	g, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 2, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	gx, _ := g.Of(x)
	gw, _ := g.Of(w) // summed over the broadcast rows
	fmt.Printf("%.4f\n%.4f\n", gx.Float64s(), gw.Float64s())
	// Output:
	// [1.0000 -1.5729 0.4200 -0.1413]
	// [-0.7616 1.4261]
}

// Complex inputs follow PyTorch's convention: for holomorphic f the pullback is
// conj(f'(z)) ybar.
func ExampleSquare() {
	z := tensor.ScalarComplex(1 + 2i)
	rule, _ := elementwise.SquareOp.Apply([]cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{z}, make([]*tensor.Dense, 1))
	cs, _ := rule.Pullback([]*tensor.Dense{tensor.ScalarComplex(1)}, []bool{true}, nil)
	fmt.Println(cs[0].Value.At()) // 2 conj(z)
	// Output:
	// (2-4i)
}

// Maximum splits the cotangent evenly between tied operands.
func ExampleMaximum() {
	a, _ := tensor.FromFloat64([]float64{1, 3, 2}, 3)
	b, _ := tensor.FromFloat64([]float64{1, 0, 5}, 3)
	y, _ := elementwise.Maximum(a, b)
	rule, _ := elementwise.MaximumOp.Apply([]cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}, []*tensor.Dense{a, b}, make([]*tensor.Dense, 1))
	cs, _ := rule.Pullback([]*tensor.Dense{tensor.Ones(tensor.Float64, 3)}, []bool{true}, nil)
	fmt.Println(y.Float64s(), cs[0].Value.Float64s(), cs[1].Value.Float64s())
	// Output:
	// [1 3 5] [0.5 1 0] [0.5 0 1]
}

func ExamplePowScalar() {
	x, _ := tensor.FromFloat64([]float64{4, 9}, 2)
	y, _ := elementwise.PowScalar(x, 0.5)
	fmt.Println(y.Float64s())
	// Output:
	// [2 3]
}

// cube and its derivatives are written once for both element types.
func cube[T tensor.Element](x T) T      { return x * x * x }
func cubeD1[T tensor.Element](x, _ T) T { return 3 * x * x }
func cubeD2[T tensor.Element](x, _ T) T { return 6 * x }

// A new elementwise op from its function and two derivatives: y = x³ on float64 and,
// holomorphic, on complex128, with its pullback, forward and second-order rules.
func ExampleUnary() {
	op := elementwise.Unary("cube", elementwise.UnarySpec{
		Real:    elementwise.Func1[float64]{F: cube[float64], D1: cubeD1[float64], D2: cubeD2[float64]},
		Complex: elementwise.Func1[complex128]{F: cube[complex128], D1: cubeD1[complex128], D2: cubeD2[complex128]},
	})
	z := tensor.ScalarComplex(1 + 1i)
	rule, _ := op.Apply([]cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{z}, make([]*tensor.Dense, 1))
	cs, _ := rule.Pullback([]*tensor.Dense{tensor.ScalarComplex(1)}, []bool{true}, nil)
	fmt.Println(cs[0].Value.At()) // conj(3 z²) ybar = conj(6i)

	x, _ := tensor.FromFloat64([]float64{-1, 0.5, 2}, 3)
	err := ruletest.Verify(tensor.Space{}, op, []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 16})
	fmt.Println("float64 rules verified:", err == nil)
	err = ruletest.Verify(tensor.Space{}, op, []*tensor.Dense{z}, ruletest.Config{FullJacobianMaxSize: 16})
	fmt.Println("complex128 rules verified:", err == nil)
	// Output:
	// (0-6i)
	// float64 rules verified: true
	// complex128 rules verified: true
}

// A new binary op, y = a² b, from its partials f_a = 2ab, f_b = a² and second
// partials f_aa = 2b, f_ab = 2a, f_bb = 0. b broadcasts along the rows of a, and its
// cotangent is summed back over them.
func ExampleBinary() {
	op := elementwise.Binary("sqmul", elementwise.BinarySpec{Real: elementwise.Func2[float64]{
		F:  func(a, b float64) float64 { return a * a * b },
		D1: func(a, b, _ float64) (float64, float64) { return 2 * a * b, a * a },
		D2: func(a, b, _ float64) (float64, float64, float64) { return 2 * b, 2 * a, 0 },
	}})
	av, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	bv, _ := tensor.FromFloat64([]float64{10, -1}, 2)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	a, b := tape.Leaf(av), tape.Leaf(bv)
	y := tape.Apply(op, a, b)
	g, err := tape.BackwardSeed(y, tensor.Ones(tensor.Float64, 2, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	yv, _ := tape.Value(y)
	ga, _ := g.Of(a)
	gb, _ := g.Of(b)
	fmt.Println(yv.Float64s(), ga.Float64s(), gb.Float64s())
	fmt.Println("rules verified:", ruletest.Verify(tensor.Space{}, op, []*tensor.Dense{av, bv}, ruletest.Config{}) == nil)
	// Output:
	// [10 -4 90 -16] [20 -4 60 -8] [10 20]
	// rules verified: true
}

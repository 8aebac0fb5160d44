package hvp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The dense Hessian of f(x) = sum(x^3) / 3 + x_0 x_1 is diag(2 x) plus the coupling.
func ExampleHessian() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		cubes := t.Apply(ew.ScaleOp(1.0/3), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.PowScalarOp(3), x[0])))
		x0 := t.Apply(index.SelectOp(0, 0), x[0])
		x1 := t.Apply(index.SelectOp(0, 1), x[0])
		return t.Apply(ew.AddOp, cubes, t.Apply(ew.MulOp, x0, x1))
	}
	x, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	h, err := hvp.Hessian(f, x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v\n", mat.Formatted(h))
	// Output:
	// ⎡2  1⎤
	// ⎣1  4⎦
}

// Newton-CG minimises with Hessian-vector products only; gonum drives it.
func ExampleNewtonCG() {
	obj := hvp.NewObjective(rosenbrock, 10)
	x0 := make([]float64, 10)
	res, err := optimize.Minimize(obj.Problem(), x0, nil, &hvp.NewtonCG{HessVec: obj.HessVec})
	if err != nil {
		panic(err)
	}
	fmt.Printf("status %v, f < 1e-20: %v, x[9] = %.6f, used HVPs: %v\n", res.Status, res.F < 1e-20, res.X[9], obj.HVPs > 0)
	// Output:
	// status GradientThreshold, f < 1e-20: true, x[9] = 1.000000, used HVPs: true
}

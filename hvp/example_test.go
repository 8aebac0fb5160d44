package hvp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/ops"
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
	h, err := hvp.Hessian(f, []*tensor.Dense{x})
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

// relu has no curvature, so the Hessian of sum(relu(x)) is zero. A registry from
// ops.New with relu overridden by its smooth cousin silu gives curvature to the
// transforms that are given that registry, and to no others.
func ExampleWithRegistry() {
	reg := ops.New()
	if err := reg.SetOverride("relu", func(cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return ew.SiluOp }); err != nil {
		panic(err)
	}
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.ReluOp, x[0]))
	}
	x, _ := tensor.FromFloat64([]float64{-1, 2}, 2)
	v := tensor.Ones(tensor.Float64, 2)
	for _, c := range []struct {
		name string
		tr   hvp.Transforms
	}{{"default", hvp.WithRegistry(ops.Default())}, {"smoothed", hvp.WithRegistry(reg)}} {
		grad, hv, err := c.tr.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8s grad = %.4f, H v = %.4f\n", c.name, grad[0].Float64s(), hv[0].Float64s())
	}
	// Output:
	// default  grad = [0.0000 1.0000], H v = [0.0000 0.0000]
	// smoothed grad = [0.0723 1.0908], H v = [0.3024 0.0501]
}

// A Gradient evaluates the same function at every step of a training loop, each
// evaluation in the memory of the one before; here plain gradient descent on
// f(w) = sum((w - c)^2).
func ExampleGradient() {
	c, _ := tensor.FromFloat64([]float64{1, -2, 3}, 3)
	f := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		d := t.Apply(ew.SubOp, p[0], t.Constant(c))
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, d, d))
	}
	w := tensor.New(tensor.Float64, 3)
	var g hvp.Gradient
	for range 50 {
		_, grad, err := g.Grad(f, []*tensor.Dense{w})
		if err != nil {
			panic(err)
		}
		w, _ = tensor.AddScaled(w, -0.25, grad[0]) // grad is valid until the next g.Grad
	}
	fmt.Printf("%.6f\n", w.Float64s())
	// Output: [1.000000 -2.000000 3.000000]
}

// Gradient.HVP runs the power method on a Hessian, each product in the memory of
// the one before, with the previous product as the next direction (v <- H v):
// for f(x) = sum(a x^3) / 6 the Hessian at x is diag(a x), and the Rayleigh
// quotient v.Hv / v.v tends to its largest eigenvalue.
func ExampleGradient_HVP() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	f := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		ax3 := t.Apply(ew.MulOp, t.Constant(a), t.Apply(ew.PowScalarOp(3), p[0]))
		return t.Apply(ew.ScaleOp(1.0/6), t.Apply(reduce.SumOp(nil, false), ax3))
	}
	x, _ := tensor.FromFloat64([]float64{2, 1, 1}, 3) // H = diag(2, 2, 3)
	v, _ := tensor.FromFloat64([]float64{1, 1, 1}, 3)
	var g hvp.Gradient
	var rayleigh float64
	for range 40 {
		_, hv, err := g.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
		if err != nil {
			panic(err)
		}
		vv, vh := 0.0, 0.0
		for i, vi := range v.Float64s() {
			vv, vh = vv+vi*vi, vh+vi*hv[0].Float64s()[i]
		}
		rayleigh = vh / vv
		v = hv[0] // valid until the next g.HVP, which may take it as its direction
	}
	fmt.Printf("largest eigenvalue %.6f\n", rayleigh)
	// Output: largest eigenvalue 3.000000
}

package hvp_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package documentation's function, f(x) = sum(sin(x)): its gradient is cos(x)
// and its Hessian diag(-sin(x)).
func Example() {
	x, _ := tensor.FromFloat64([]float64{0, 1}, 2)
	v := tensor.Ones(tensor.Float64, 2)
	f := func(t *core.Tape[*tensor.Dense], x []chainrules.NodeID) chainrules.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SinOp, x[0]))
	}
	grad, hv, err := hvp.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
	fmt.Printf("%.4f %.4f %v\n", grad[0].Float64s(), hv[0].Float64s(), err)
	// Output:
	// [1.0000 0.5403] [0.0000 -0.8415] <nil>
}

// The package documentation's local override: relu replaced by silu in a registry
// of the caller's, seen only by the transforms given that registry.
func ExampleWithRegistry_override() {
	xv, _ := tensor.FromFloat64([]float64{-1, 2}, 2)
	x, v := []*tensor.Dense{xv}, []*tensor.Dense{tensor.Ones(tensor.Float64, 2)}
	f := func(t *hvp.Tape, x []chainrules.NodeID) chainrules.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.ReluOp, x[0]))
	}
	reg := ops.New()
	if err := reg.SetOverride("relu", func(chainrules.Op[*tensor.Dense]) chainrules.Op[*tensor.Dense] { return elementwise.SiluOp }); err != nil {
		panic(err)
	}
	grad, hv, err := hvp.WithRegistry(reg).HVP(f, x, v)
	fmt.Printf("%.4f %.4f %v\n", grad[0].Float64s(), hv[0].Float64s(), err)
	// Output:
	// [0.0723 1.0908] [0.3024 0.0501] <nil>
}

// The README's tensor loss, f(A, B) = sum(tanh(A B)), and its Hessian-vector
// product along (dA, dB).
func Example_tensorLoss() {
	a, _ := tensor.FromFloat64([]float64{0.1, 0.2, 0.3, 0.4}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{0.5, -0.5, 1, 0}, 2, 2)
	da, db := tensor.Ones(tensor.Float64, 2, 2), tensor.Ones(tensor.Float64, 2, 2)
	f := func(t *hvp.Tape, x []chainrules.NodeID) chainrules.NodeID {
		y := t.Apply(einsum.Op("ij,jk->ik"), x[0], x[1])
		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.TanhOp, y))
	}
	grad, hv, err := hvp.HVP(f, []*tensor.Dense{a, b}, []*tensor.Dense{da, db})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n%.4f\n", grad[0].Float64s(), hv[0].Float64s())
	// Output:
	// [-0.0287 0.9400 -0.1142 0.7495]
	// [1.5331 1.1087 0.8729 0.0767]
}

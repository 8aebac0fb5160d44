package hvp_test

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// A float32 parameter set is differentiated in float32: for the least-squares loss
// f(w) = sum((A w - b)^2), the gradient 2 A^T (A w - b) and the Hessian-vector
// product 2 A^T A v come back as float32 tensors. Data of another precision must
// be converted: a float64 b is refused rather than silently widening the
// computation.
func ExampleHVP_float32() {
	A, _ := tensor.FromFloat32([]float32{1, 2, 0, 1, 1, 0}, 3, 2)
	b, _ := tensor.FromFloat32([]float32{1, 0, 2}, 3)
	loss := func(b *tensor.Dense) hvp.Func {
		return func(t *hvp.Tape, w []cr.NodeID) cr.NodeID {
			r := t.Apply(ew.SubOp, t.Apply(einsum.Op("ij,j->i"), t.Constant(A), w[0]), t.Constant(b))
			return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, r, r))
		}
	}
	w, _ := tensor.FromFloat32([]float32{1, 1}, 2)
	v, _ := tensor.FromFloat32([]float32{1, 0}, 2)
	grad, hv, err := hvp.HVP(loss(b), []*tensor.Dense{w}, []*tensor.Dense{v})
	if err != nil {
		panic(err)
	}
	fmt.Println(grad[0].DType(), grad[0].Float32s(), hv[0].Float32s())

	b64, _ := tensor.AsType(b, tensor.Float64)
	_, _, err = hvp.HVP(loss(b64), []*tensor.Dense{w}, []*tensor.Dense{v})
	fmt.Println(errors.Is(err, cr.ErrInvalidArgument))
	// Output:
	// float32 [2 10] [4 4]
	// true
}

// gonum's optimisers work in float64: an objective over a float32 layout rounds
// each point to float32 tensors, evaluates in float32 and widens the results back.
// A gradient threshold float32 can reach stops the run.
func ExampleNewParamObjective_float32() {
	target, _ := tensor.FromFloat32([]float32{1, -2, 3}, 3)
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		d := t.Apply(ew.SubOp, x[0], t.Constant(target))
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, d, d))
	}
	l, _ := hvp.NewLayoutOf(tensor.Float32, []int{3})
	obj := hvp.NewParamObjective(f, l)
	res, err := hvp.Minimize(obj, []float64{0, 0, 0}, &optimize.Settings{GradientThreshold: 1e-5}, &hvp.NewtonCG{})
	if err != nil {
		panic(err)
	}
	x, _ := l.Unflatten(res.X)
	fmt.Println(l, x[0].DType(), x[0].Float32s())
	// Output:
	// float32 [[3]] (3 elements) float32 [1 -2 3]
}

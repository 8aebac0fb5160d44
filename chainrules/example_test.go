package chainrules_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// cubeRule differentiates y = x^3 at x: xbar = 3 x^2 ybar, ydot = 3 x^2 xdot.
type cubeRule struct {
	in [1]cr.NodeID
	x  float64
}

func (r *cubeRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *cubeRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: 3 * r.x * r.x * ybar[0]}), nil
}

func (r *cubeRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.in[0])
	ydot[0], has[0] = 3*r.x*r.x*xd, ok
	return nil
}

// An op family is registered once, with samples for the rule checker; a second
// registration of the name is an error.
func ExampleRegistry() {
	cube := cr.OpFunc[float64]{OpName: "cube", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return x[0] * x[0] * x[0], &cubeRule{in: [1]cr.NodeID{in[0]}, x: x[0]}, nil
	}}
	reg := cr.NewRegistry[float64]()
	err := reg.Register(cr.Entry[float64]{
		Name: "cube", Arity: 1, DTypes: []string{"float64"}, Forward: true,
		Doc: "y = x^3",
		Samples: func(rng *rand.Rand) []cr.Sample[float64] {
			return []cr.Sample[float64]{{Name: "random", Op: cube, Inputs: []float64{rng.NormFloat64()}}}
		},
	})
	fmt.Println(err)
	err = reg.Register(cr.Entry[float64]{Name: "cube", Arity: 1})
	fmt.Println(errors.Is(err, cr.ErrDuplicate), err)
	e, _ := reg.Lookup("cube")
	fmt.Println(e.Name, e.Arity, e.Forward, e.SecondOrder)
	// Output:
	// <nil>
	// true duplicate op name: op "cube" is already registered
	// cube 1 true false
}

// Errors wrap a sentinel, so callers test the kind with errors.Is and read the op
// and node with errors.As.
func ExampleOpError() {
	err := fmt.Errorf("training step: %w", &cr.OpError{
		Op: "einsum", Node: cr.NewNodeID(1, 7), Phase: "apply",
		Err: cr.Errorf(cr.ErrShapeMismatch, "label j is 3 in operand 0 and 4 in operand 1"),
	})
	var oe *cr.OpError
	fmt.Println(errors.Is(err, cr.ErrShapeMismatch), errors.As(err, &oe), oe.Op, oe.Node)
	fmt.Println(err)
	// Output:
	// true true einsum %7
	// training step: chainrules: einsum at node %7 (apply): shape mismatch: label j is 3 in operand 0 and 4 in operand 1
}

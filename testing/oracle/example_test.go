package oracle_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/testing/oracle"
)

// Reduction cases record no axes: they are recovered from the shapes.
func ExampleInferReduction() {
	axes, keepdim, ok := oracle.InferReduction([]int{3, 2, 4}, []int{3, 1, 1})
	fmt.Println(axes, keepdim, ok)
	axes, keepdim, ok = oracle.InferReduction([]int{3, 2, 4}, []int{2})
	fmt.Println(axes, keepdim, ok)
	// Output:
	// [1 2] true true
	// [0 2] false true
}

// The vendored cases of an op, with their probes (tangent direction, cotangent and
// PyTorch's JVP, VJP and HVP).
func ExampleLoad() {
	cases, err := oracle.Load("exp")
	if err != nil {
		panic(err)
	}
	c := cases[0]
	fmt.Println(c.ID, c.DType, len(c.Probes) > 0)
	// Output:
	// exp_f64_identity_001 float64 true
}

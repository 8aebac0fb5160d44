package softplus_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/examples/customop/softplus"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// The rule author's proof in one call: Verify returns nil when every check passes.
func ExampleOp() {
	x, _ := tensor.FromFloat64([]float64{-1, 0, 2}, 3)
	err := ruletest.Verify(tensor.Space{}, softplus.Op, []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 16})
	fmt.Println("softplus rules verified:", err == nil)
	// Output:
	// softplus rules verified: true
}

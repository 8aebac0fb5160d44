package softplus_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/examples/customop/softplus"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// softplusOp is the op that testing/ruletest's package documentation checks.
var softplusOp = softplus.Op

// TestSoftplus is the test of testing/ruletest's package documentation.
func TestSoftplus(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 3, 4)
	ruletest.Check(t, tensor.Space{}, softplusOp, []*tensor.Dense{x}, ruletest.Config{})
}

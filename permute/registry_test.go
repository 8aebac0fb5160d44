package permute_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestRules runs the rule checker, first and second order, on every sample of every
// family this package registers.
func TestRules(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, permute.Register(reg))
	require.ElementsMatch(t, []string{"permute", "transpose", "moveaxis", "reshape", "squeeze", "unsqueeze", "adjoint", "broadcast_to"}, reg.Names())
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 64, MinOrder: 4})
}

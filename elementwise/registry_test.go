package elementwise_test

import (
	"testing"

	_ "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestRegistry runs the rule checker on every registered op at its samples: primal,
// structure, adjoint and forward finite differences, second order, Hessian symmetry,
// linearity, repeat and mutation, for float64, complex128 and promotion.
func TestRegistry(t *testing.T) {
	ruletest.CheckRegistry(t, tensor.Space{}, tensor.Ops, ruletest.Config{FullJacobianMaxSize: 40})
}

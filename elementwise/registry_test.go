package elementwise_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestRegistry runs the rule checker on every op the package registers, at its
// samples: primal, structure, adjoint and forward finite differences, second order,
// Hessian symmetry, linearity, repeat and mutation, for float64, complex128 and
// promotion.
func TestRegistry(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, elementwise.Register(reg))
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 40, MinOrder: 4})
}

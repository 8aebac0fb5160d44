package linalg_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestRegistry checks every registered family at its samples: primal,
// finite-difference, adjoint, forward, second-order and contract checks.
func TestRegistry(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, linalg.Register(reg))
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 64, MinOrder: 4})
}

func TestRegisterErrors(t *testing.T) {
	require.ErrorIs(t, linalg.Register(nil), cr.ErrInvalidArgument)
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, linalg.Register(reg))
	require.ErrorIs(t, linalg.Register(reg), cr.ErrDuplicate)
}

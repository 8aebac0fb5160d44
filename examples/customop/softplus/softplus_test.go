package softplus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/examples/customop/softplus"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestRegistry proves the rules at the entry's samples, including the full
// Jacobian of the small ones.
func TestRegistry(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, softplus.Register(reg))
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 32, MinOrder: 4})
}

func TestPoints(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
	}{
		{"zero", []float64{0}},
		{"mixed", []float64{-2, -0.5, 0.25, 1, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := tensor.FromFloat64(tc.x, len(tc.x))
			require.NoError(t, err)
			ruletest.Check(t, tensor.Space{}, softplus.Op, []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 16})
		})
	}
}

func TestRejectsComplex(t *testing.T) {
	z := tensor.New(tensor.Complex128, 2)
	_, err := cr.Eval(softplus.Op, z)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

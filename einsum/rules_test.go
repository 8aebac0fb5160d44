package einsum

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestRegistryRules(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, Register(reg))
	require.Equal(t, []string{Name}, reg.Names())
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 60, MinOrder: 4})
}

// TestRules runs the rule checker on every spec of the reference table, with
// float64, complex128 and mixed operands.
func TestRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range specCases {
		for mode := range 3 {
			if mode == 2 && len(c.shapes) < 2 {
				continue
			}
			t.Run(c.spec+"/"+modeNames[mode], func(t *testing.T) {
				ops := randOperands(rng, c.shapes, mode)
				ruletest.Check(t, tensor.Space{}, Op(c.spec), ops, ruletest.Config{})
			})
		}
	}
}

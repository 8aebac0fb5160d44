package elementwise_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Every family of the package, at every sample with its inputs rounded to single
// precision, computes in single precision and its rules (pullback, forward,
// second order) agree with the double-precision rules at the same values
// (ruletest.CheckSingle; the double-precision rules themselves are checked against
// finite differences by TestRegistry). Mixed samples keep their double inputs.
func TestSinglePrecisionRules(t *testing.T) {
	reg := recordtest.SingleRegistry(t, elementwise.Register)
	rng := rand.New(rand.NewPCG(21, 22))
	n := 0
	for _, e := range reg.Entries() {
		if e.NoDerivative {
			continue
		}
		for _, s := range e.Samples(rng) {
			t.Run(e.Name+"/"+s.Name, func(t *testing.T) {
				ruletest.CheckSingle(t, tensor.Space{}, s.Op, s.Inputs, ruletest.SingleConfig{SkipDouble: true})
			})
			n++
		}
	}
	require.Greater(t, n, 200)
}

// Every family of the package in single precision, through ruletest's registry
// check at the single-precision samples: the exact identities (primal, structure,
// adjoint and forward identities, linearity, mutation, ...), the finite
// differences in float32 and the recorded derivatives to order 4 (the recorded
// pullbacks run the registered ops on single-precision nodes). The absolute
// tolerance of the finite differences is raised from ruletest's float32 default
// (1e-3) to 2e-2: a mixed second difference in float32 with the default step
// 1e-2 carries rounding noise of eps |f| / h^2 ~ 1e-3 |f| (rad2deg's 57 x
// reaches 0.012 where the exact value is 0). The tight check of the rules is
// TestSinglePrecisionRules: each against its double-precision twin, whose finite
// differences TestRegistry checks in float64.
func TestSinglePrecisionRegistry(t *testing.T) {
	reg := recordtest.SingleRegistry(t, elementwise.Register)
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{MinOrder: 4, Atol: 2e-2})
}

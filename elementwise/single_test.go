package elementwise_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
)

// Every family of the package, at every sample with its inputs rounded to single
// precision, computes in single precision and its rules (pullback, forward,
// second order) agree with the double-precision rules at the same values
// (ruletest.CheckSingle; the double-precision rules themselves are checked against
// finite differences by TestRegistry). Mixed samples keep their double inputs.
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, elementwise.Register, 200)
}

// Every family of the package in single precision, through ruletest's registry
// check at the single-precision samples: the exact identities (primal, structure,
// adjoint and forward identities, linearity, mutation, ...), the finite
// differences in float32 (tolerance: see recordtest.CheckSingleRegistry) and the
// recorded derivatives to order 4 (the recorded pullbacks run the registered ops
// on single-precision nodes).
func TestSinglePrecisionRegistry(t *testing.T) {
	recordtest.CheckSingleRegistry(t, elementwise.Register)
}

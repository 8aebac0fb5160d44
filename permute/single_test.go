package permute_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/permute"
)

// Every permute family, at every sample with its inputs rounded to single precision,
// computes in single precision and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, permute.Register, 5)
}

// The permute families in single precision through ruletest's registry check, recorded
// derivatives to order 4 included (finite differences in float32, with the
// absolute tolerance of recordtest.CheckSingleRegistry).
func TestSinglePrecisionRegistry(t *testing.T) {
	recordtest.CheckSingleRegistry(t, permute.Register)
}

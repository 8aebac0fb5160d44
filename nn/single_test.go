package nn_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
)

// Every op of nn, at every sample with its inputs rounded to single precision,
// computes in single precision (in double precision, rounded once) and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, nn.Register, 100)
}

// The ops of nn in single precision through ruletest's registry check, recorded
// derivatives to order 4 included (finite differences in float32, with the
// absolute tolerance of recordtest.CheckSingleRegistry).
func TestSinglePrecisionRegistry(t *testing.T) {
	recordtest.CheckSingleRegistry(t, nn.Register)
}

package einsum_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/internal/recordtest"
)

// Every einsum family, at every sample with its inputs rounded to single precision,
// computes in single precision (contracting in double precision) and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, einsum.Register, 10)
}

// The einsum families in single precision through ruletest's registry check, recorded
// derivatives to order 4 included (finite differences in float32, with the
// absolute tolerance of recordtest.CheckSingleRegistry).
func TestSinglePrecisionRegistry(t *testing.T) {
	recordtest.CheckSingleRegistry(t, einsum.Register)
}

package permute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Every permute family, at every sample with its inputs rounded to single precision,
// computes in single precision and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	reg := recordtest.SingleRegistry(t, permute.Register)
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
	require.Greater(t, n, 5)
}

// The permute families in single precision through ruletest's registry check, recorded
// derivatives to order 4 included (finite differences in float32, with the
// absolute tolerance of elementwise's TestSinglePrecisionRegistry).
func TestSinglePrecisionRegistry(t *testing.T) {
	reg := recordtest.SingleRegistry(t, permute.Register)
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{MinOrder: 4, Atol: 2e-2})
}

package linalg_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Every op of linalg, at every sample with its inputs rounded to single precision,
// computes in single precision (in double precision, rounded once) and its rules
// agree with the double-precision rules at the same values (ruletest.CheckSingle).
func TestSinglePrecisionRules(t *testing.T) {
	recordtest.CheckSingleRules(t, linalg.Register, 150)
}

// acrossDiscontinuity are the samples, by family and name, at which a finite
// difference with float32's step (1e-2, ten times float64's) crosses a jump of
// the function: LAPACK's sign convention for Householder reflectors (qr and svd
// of the tall sample, whose entry (0, 0) is -0.0038), a change of pivot (lu), and
// the sign or phase normalisation of eigenvectors (eigh, eig). The same samples
// fail in float64 with that step (ruletest.Config{Step: 1e-2}), so the jump is the
// sample's, not single precision's. Their rules are checked in single precision by
// TestSinglePrecisionRules (against the double-precision rules, which the float64
// registry test checks by finite differences with step 1e-3).
var acrossDiscontinuity = map[string][]string{
	"qr":   {"tall"},
	"svd":  {"tall"},
	"lu":   {"square"},
	"eigh": {"4x4"},
	"eig":  {"batched, |V| + L"},
}

// The ops of linalg in single precision through ruletest's registry check,
// recorded derivatives to order 4 included (finite differences in float32, with
// the absolute tolerance of recordtest.CheckSingleRegistry), at every sample but
// those of acrossDiscontinuity.
func TestSinglePrecisionRegistry(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	for _, e := range recordtest.SingleRegistry(t, linalg.Register).Entries() {
		if skip := acrossDiscontinuity[e.Name]; skip != nil {
			samples := e.Samples
			e.Samples = func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				ss := samples(rng)
				kept := slices.DeleteFunc(slices.Clone(ss), func(s cr.Sample[*tensor.Dense]) bool { return slices.Contains(skip, s.Name) })
				require.Len(t, kept, len(ss)-len(skip), "%s: a sample of acrossDiscontinuity is gone", e.Name)
				return kept
			}
		}
		require.NoError(t, cr.RegisterEntries(reg, "single", e))
	}
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{MinOrder: 4, Atol: 2e-2})
}

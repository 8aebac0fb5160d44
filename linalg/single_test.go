package linalg_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
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

// Bad single-precision input is the error of the double-precision op, wrapping
// the same sentinel, naming the op and the dtypes the caller gave; nothing panics.
func TestSinglePrecisionBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f32 := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float32, shape...) }
	notPD, err := tensor.FromFloat32([]float32{1, 2, 2, 1}, 2, 2)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		in     []*tensor.Dense
		want   error
		inText string
	}{
		{"eig of complex64 (float64-only)", linalg.EigOp(), []*tensor.Dense{tensor.RandN(rng, tensor.Complex64, 3, 3)}, cr.ErrInvalidArgument, "complex64[3 3]"},
		{"solve with mismatched rows", linalg.SolveOp(), []*tensor.Dense{f32(3, 3), f32(4)}, cr.ErrShapeMismatch, "float32[4]"},
		{"cholesky of a matrix that is not positive-definite", linalg.CholeskyOp(false), []*tensor.Dense{notPD}, cr.ErrInvalidArgument, "float32[2 2]"},
		{"det of a non-square matrix", linalg.DetOp(), []*tensor.Dense{f32(2, 3)}, cr.ErrShapeMismatch, "float32[2 3]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cr.EvalMulti(tc.op, tc.in...)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.op.Name())
			assert.Contains(t, err.Error(), tc.inText)
		})
	}
}

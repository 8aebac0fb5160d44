package recordtest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// SingleOf returns x rounded to single precision of its kind (float32 for float64,
// complex64 for complex128; other dtypes unchanged).
func SingleOf(t testing.TB, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	dt := x.DType()
	switch dt {
	case tensor.Float64:
		dt = tensor.Float32
	case tensor.Complex128:
		dt = tensor.Complex64
	}
	y, err := tensor.AsType(x, dt)
	require.NoError(t, err)
	return y
}

// SingleRegistry returns the families that register adds, with every sample's
// inputs rounded to single precision (SingleOf) and the single-precision twins of
// their dtypes added where they are missing: ruletest.CheckRegistry on it checks the families in single
// precision.
func SingleRegistry(t testing.TB, register func(*cr.Registry[*tensor.Dense]) error) *cr.Registry[*tensor.Dense] {
	t.Helper()
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, register(reg))
	out := cr.NewRegistry[*tensor.Dense]()
	for _, e := range reg.Entries() {
		if e.Samples == nil {
			continue
		}
		samples := e.Samples
		for _, d := range e.DTypes {
			if s := map[string]string{"float64": "float32", "complex128": "complex64"}[d]; s != "" && !slices.Contains(e.DTypes, s) {
				e.DTypes = append(slices.Clone(e.DTypes), s)
			}
		}
		e.Samples = func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
			ss := samples(rng)
			for i, s := range ss {
				in := make([]*tensor.Dense, len(s.Inputs))
				for k, x := range s.Inputs {
					in[k] = SingleOf(t, x)
				}
				ss[i].Inputs = in
			}
			return ss
		}
		require.NoError(t, cr.RegisterEntries(out, "single", e))
	}
	return out
}

// CheckSingleRules runs ruletest.CheckSingle on every differentiable family that
// register adds, at every sample with its inputs rounded to single precision
// (SingleRegistry): each rule computes in single precision and agrees with its
// double-precision twin at the same values. It fails unless more than minSamples
// samples ran, so that a registry that lost its samples cannot pass.
func CheckSingleRules(t *testing.T, register func(*cr.Registry[*tensor.Dense]) error, minSamples int) {
	t.Helper()
	reg := SingleRegistry(t, register)
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
	require.Greater(t, n, minSamples)
}

// CheckSingleRegistry runs ruletest's registry check on the families that register
// adds, in single precision (SingleRegistry), recorded derivatives to order 4
// included. The absolute tolerance of the finite differences is raised from
// ruletest's float32 default (1e-3) to 2e-2: a mixed second difference in float32
// with the default step 1e-2 carries rounding noise of eps |f| / h^2 ~ 1e-3 |f|
// (rad2deg's 57 x reaches 0.012 where the exact value is 0). The tight check of
// the rules is CheckSingleRules: each against its double-precision twin, whose
// finite differences the packages' float64 registry tests check.
func CheckSingleRegistry(t *testing.T, register func(*cr.Registry[*tensor.Dense]) error) {
	t.Helper()
	ruletest.CheckRegistry(t, tensor.Space{}, SingleRegistry(t, register), ruletest.Config{MinOrder: 4, Atol: 2e-2})
}

package elementwise_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// singleOf returns x rounded to single precision (float32 for float64, complex64
// for complex128).
func singleOf(t *testing.T, x *tensor.Dense) *tensor.Dense {
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

// Every family of the package, at every sample with its inputs rounded to single
// precision, computes in single precision and its rules (pullback, forward,
// second order) agree with the double-precision rules at the same values
// (ruletest.CheckSingle; the double-precision rules themselves are checked against
// finite differences by TestRegistry). Mixed samples keep their double inputs.
func TestSinglePrecisionRules(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, elementwise.Register(reg))
	rng := rand.New(rand.NewPCG(21, 22))
	n := 0
	for _, e := range reg.Entries() {
		if e.Samples == nil || e.NoDerivative {
			continue
		}
		for _, s := range e.Samples(rng) {
			in := make([]*tensor.Dense, len(s.Inputs))
			for k, x := range s.Inputs {
				in[k] = singleOf(t, x)
			}
			t.Run(e.Name+"/"+s.Name, func(t *testing.T) {
				ruletest.CheckSingle(t, tensor.Space{}, s.Op, in, ruletest.SingleConfig{SkipDouble: true})
			})
			n++
		}
	}
	require.Greater(t, n, 200)
}

// singleRegistry returns the package's families with their samples rounded to
// single precision (and float32 and complex64 added to their dtypes).
func singleRegistry(t *testing.T) *cr.Registry[*tensor.Dense] {
	t.Helper()
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, elementwise.Register(reg))
	out := cr.NewRegistry[*tensor.Dense]()
	for _, e := range reg.Entries() {
		if e.Samples == nil {
			continue
		}
		samples := e.Samples
		e.DTypes = append(slices.Clone(e.DTypes), "float32", "complex64")
		e.Samples = func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
			ss := samples(rng)
			for i, s := range ss {
				in := make([]*tensor.Dense, len(s.Inputs))
				for k, x := range s.Inputs {
					in[k] = singleOf(t, x)
				}
				ss[i].Inputs = in
			}
			return ss
		}
		require.NoError(t, cr.RegisterEntries(out, "single", e))
	}
	return out
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
	ruletest.CheckRegistry(t, tensor.Space{}, singleRegistry(t), ruletest.Config{MinOrder: 4, Atol: 2e-2})
}

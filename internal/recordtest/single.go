package recordtest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
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

package elementwise_test

import (
	"math/rand/v2"
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

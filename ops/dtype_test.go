package ops_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// single returns the single-precision dtype of dt's kind (Float32 for Float64,
// Complex64 for Complex128; dt itself otherwise).
func single(dt tensor.DType) tensor.DType {
	switch dt {
	case tensor.Float64:
		return tensor.Float32
	case tensor.Complex128:
		return tensor.Complex64
	}
	return dt
}

// Every registered family, at every sample, with its inputs rounded to single
// precision (float64 to float32, complex128 to complex64), computes: each output
// has the single precision dtype of the float64 evaluation at the same (rounded)
// values, and agrees with it to single-precision accuracy. No family refuses
// single precision (a refusal would have to be an error wrapping
// tensor.ErrDTypeNotSupported that names the family and the dtype, and is a
// failure here all the same); nothing panics, and nothing gives a wrong answer
// silently.
func TestEveryFamilyHandlesSinglePrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	refused, worked := 0, 0
	for _, e := range ops.Default().Entries() {
		if e.Samples == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			for _, s := range e.Samples(rng) {
				in := make([]*tensor.Dense, len(s.Inputs))
				wide := make([]*tensor.Dense, len(s.Inputs))
				for k, x := range s.Inputs {
					var err error
					in[k], err = tensor.AsType(x, single(x.DType()))
					require.NoError(t, err)
					wide[k], err = tensor.AsType(in[k], x.DType())
					require.NoError(t, err)
				}
				var got []*tensor.Dense
				var err error
				if p := catch(func() { got, err = cr.EvalMulti(s.Op, in...) }); p != nil {
					t.Errorf("%s in single precision: panic: %v", s.Name, p)
					continue
				}
				if err != nil {
					refused++
					checkDTypeRefusal(t, e.Name, s.Name, "without a tape", err)
					var tpErr error
					if p := catch(func() { _, tp := applyOnTape(s.Op, in); tpErr = tp.Err() }); p != nil {
						t.Errorf("%s in single precision, on a tape: panic: %v", s.Name, p)
						continue
					}
					checkDTypeRefusal(t, e.Name, s.Name, "on a tape", tpErr)
					continue
				}
				worked++
				want, err := cr.EvalMulti(s.Op, wide...)
				require.NoError(t, err, "%s at the rounded inputs in double precision", s.Name)
				require.Len(t, got, len(want))
				for m := range want {
					assert.Equal(t, single(want[m].DType()), got[m].DType(), "%s output %d", s.Name, m)
					g, err := tensor.AsType(got[m], want[m].DType())
					require.NoError(t, err)
					if !tensor.EqualApprox(g, want[m], 1e-4, 1e-4) {
						idx, a, b, _ := tensor.MaxDiff(g, want[m])
						t.Errorf("%s output %d in single precision: %v at %v, double precision gives %v", s.Name, m, a, idx, b)
					}
				}
			}
		})
	}
	t.Logf("%d samples refused single precision, %d computed it", refused, worked)
	assert.Zero(t, refused, "samples refused single precision")
	assert.Positive(t, worked)
}

// checkDTypeRefusal requires err to be the typed refusal of a single-precision input
// by family: wrapping tensor.ErrDTypeNotSupported and cr.ErrInvalidArgument, and
// naming the family and a single-precision dtype.
func checkDTypeRefusal(t *testing.T, family, sample, how string, err error) {
	t.Helper()
	if !assert.Error(t, err, "%s in single precision, %s", sample, how) {
		return
	}
	msg := err.Error()
	assert.True(t, errors.Is(err, tensor.ErrDTypeNotSupported) && errors.Is(err, cr.ErrInvalidArgument),
		"%s in single precision, %s: not the typed dtype error: %v", sample, how, err)
	assert.True(t, strings.Contains(msg, family), "%s, %s: the error does not name %s: %v", sample, how, family, err)
	assert.True(t, strings.Contains(msg, "float32") || strings.Contains(msg, "complex64"),
		"%s, %s: the error does not name the dtype: %v", sample, how, err)
}

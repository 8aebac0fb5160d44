package einsum

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// addTerm sums two terms of a tangent: in the first term's storage when it is
// the rule's own, in fresh storage when it is a view of an argument (which must
// not change); the sum is tensor.Add's, bit for bit, in either case.
func TestAddTerm(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			mk := func(vals ...float64) *tensor.Dense {
				d, err := tensor.FromFloat64(vals, 2, 3)
				require.NoError(t, err)
				d, err = tensor.AsType(d, dt)
				require.NoError(t, err)
				return d
			}
			arg := mk(0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
			snapshot := func(d *tensor.Dense) []float64 {
				w, err := tensor.AsType(d, tensor.Float64)
				require.NoError(t, err)
				return append([]float64(nil), w.Float64s()...)
			}
			for _, tc := range []struct {
				name string
				acc  func() *tensor.Dense
				own  bool
			}{
				{"own storage", func() *tensor.Dense { return mk(1.1, 2.2, 3.3, 4.4, 5.5, 6.6) }, true},
				{"the argument itself", func() *tensor.Dense { return arg }, false},
				{"a view of the argument", func() *tensor.Dense {
					v, err := arg.Reshape(3, 2)
					require.NoError(t, err)
					v, err = v.Reshape(2, 3)
					require.NoError(t, err)
					return v
				}, false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := snapshot(arg)
					acc := tc.acc()
					term := mk(1e-3, -2e-3, 3e-3, 7, -8, 9)
					want, err := tensor.Add(acc, term)
					require.NoError(t, err)
					wantVals := snapshot(want)
					sum, err := addTerm(acc, term, []*tensor.Dense{nil, arg})
					require.NoError(t, err)
					require.Equal(t, wantVals, snapshot(sum))
					require.Equal(t, tc.own, sum == acc, "summed in the first term's storage")
					require.Equal(t, before, snapshot(arg), "the argument changed")
				})
			}
		})
	}
}

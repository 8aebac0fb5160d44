package elementwise_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// pow at a = 0, b = 1 is on the kink of its masks (PyTorch's: f_b = 0 where a = 0
// and b >= 0). y = a, so f_a = 1; f_aa = 0 (b(b-1) = 0), f_bb = 0 (y = 0), and the
// mixed partial is taken as d/db (b a^(b-1)) = a^(b-1) + b a^(b-1) log a with the
// second term masked at a = 0, that is 1 (what PyTorch's double backward gives for
// d xbar_a / d b). The second-order rule uses it for both cross terms.
func TestPowSecondOrderAtZeroOne(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		a := tensor.Full(dt, 0, 2)
		b := tensor.Full(dt, 1, 2)
		ids := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
		y, rule, err := recordtest.Apply1(elementwise.PowOp, ids, []*tensor.Dense{a, b})
		require.NoError(t, err)
		assert.Equal(t, []complex128{0, 0}, cvals(y))

		ad := tensor.Full(dt, 3, 2)
		bd := tensor.Full(dt, 5, 2)
		tangents := map[cr.NodeID]*tensor.Dense{ids[0]: ad, ids[1]: bd}
		of := func(id cr.NodeID) (*tensor.Dense, bool) { v, ok := tangents[id]; return v, ok }

		// ydot = f_a adot + f_b bdot = adot.
		yd, ok, err := recordtest.Forward1(rule, of)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, []complex128{3, 3}, cvals(yd), "%v ydot", dt)

		// xbar = (f_a ybar, f_b ybar) = (ybar, 0).
		ybar, ybard := tensor.Full(dt, 2, 2), tensor.Full(dt, 7, 2)
		pb, err := recordtest.Pullback1(rule, ybar, nil)
		require.NoError(t, err)
		require.Len(t, pb, 2)
		assert.Equal(t, []complex128{2, 2}, cvals(pb[0].Value))
		assert.Equal(t, []complex128{0, 0}, cvals(pb[1].Value))

		// xbardot_a = f_a ybardot + (f_aa adot + f_ab bdot) ybar = 7 + 5*2 = 17,
		// xbardot_b = f_b ybardot + (f_ab adot + f_bb bdot) ybar = 3*2 = 6.
		ct := cr.Dual[*tensor.Dense]{Value: ybar, Tangent: ybard, HasTangent: true}
		so, err := recordtest.SecondOrder1(rule, y, ct, of, nil)
		require.NoError(t, err)
		require.Len(t, so, 2)
		assert.Equal(t, cvals(pb[0].Value), cvals(so[0].Cotangent.Value))
		assert.Equal(t, cvals(pb[1].Value), cvals(so[1].Cotangent.Value))
		require.True(t, so[0].Cotangent.HasTangent)
		assert.Equal(t, []complex128{17, 17}, cvals(so[0].Cotangent.Tangent), "%v xbardot_a", dt)
		if so[1].Cotangent.HasTangent {
			assert.Equal(t, []complex128{6, 6}, cvals(so[1].Cotangent.Tangent), "%v xbardot_b", dt)
		} else {
			t.Errorf("%v: xbardot_b absent, want 6", dt)
		}
	}
}

// cvals returns the elements of t as complex numbers.
func cvals(t *tensor.Dense) []complex128 { return t.AsComplex().Contiguous().Complex128s() }

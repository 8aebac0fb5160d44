package elementwise

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestAffine checks which rules report an affine op (chainrules.AffineRule): scale,
// shift, neg, add and sub on float64 and complex128 operands, and no op whose second
// derivative is not zero.
func TestAffine(t *testing.T) {
	xr := tensor.Ones(tensor.Float64, 3)
	xc := tensor.Ones(tensor.Complex128, 3)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
		want bool
	}{
		{"scale", ScaleOp(2), []*tensor.Dense{xr}, true},
		{"scale complex", ScaleOp(2i), []*tensor.Dense{xc}, true},
		{"shift", ShiftOp(1), []*tensor.Dense{xr}, true},
		{"neg", NegOp, []*tensor.Dense{xr}, true},
		{"neg complex", NegOp, []*tensor.Dense{xc}, true},
		{"add", AddOp, []*tensor.Dense{xr, xr}, true},
		{"sub complex", SubOp, []*tensor.Dense{xc, xr}, true},
		{"exp", ExpOp, []*tensor.Dense{xr}, false},
		{"square", SquareOp, []*tensor.Dense{xr}, false},
		{"conj (not holomorphic)", ConjOp, []*tensor.Dense{xc}, false},
		{"mul", MulOp, []*tensor.Dense{xr, xr}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := make([]cr.NodeID, len(c.in))
			y := make([]*tensor.Dense, 1)
			r, err := c.op.Apply(in, c.in, y)
			require.NoError(t, err)
			a, ok := r.(cr.AffineRule)
			require.True(t, ok, "the rule implements AffineRule")
			assert.Equal(t, c.want, a.Affine())
		})
	}
}

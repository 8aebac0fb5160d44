package hvp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestGradReusesNothingItReturned evaluates a gradient again and again, as an
// optimiser does: each evaluation makes its values in the storage the previous one
// released. What a call returned (the value, the gradients) and what the function
// read with Value must stay as they were; under the race detector released
// storage is filled with NaN, so a value reused too early would show.
func TestGradReusesNothingItReturned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := tensor.RandN(rng, tensor.Float64, 64, 64)
	x := tensor.RandN(rng, tensor.Float64, 128, 64)
	var read []*tensor.Dense
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
		v, err := tp.Value(h) // kept by the caller
		require.NoError(t, err)
		read = append(read, v)
		sq := tp.Apply(ew.MulOp, h, h)
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, sq))
	}
	type result struct{ value, grad, read []float64 }
	var got []result
	var live [][]*tensor.Dense
	for range 4 {
		value, grad, err := hvp.Grad(f, []*tensor.Dense{w})
		require.NoError(t, err)
		got = append(got, result{
			append([]float64(nil), value.Float64s()...),
			append([]float64(nil), grad[0].Float64s()...),
			append([]float64(nil), read[len(read)-1].Float64s()...),
		})
		live = append(live, []*tensor.Dense{value, grad[0], read[len(read)-1]})
	}
	for i, r := range got {
		require.Equal(t, got[0], r, "call %d differs from the first", i)
		require.Equal(t, r.value, live[i][0].Float64s(), "call %d's value changed later", i)
		require.Equal(t, r.grad, live[i][1].Float64s(), "call %d's gradient changed later", i)
		require.Equal(t, r.read, live[i][2].Float64s(), "call %d's read value changed later", i)
	}
}

package linalg

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// TestCholPullbackF64 checks the structured real pullback and sandwich of cholesky
// against the generic formulas, with several blocks and a batch.
func TestCholPullbackF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 5, 70, 150} {
		a := tensor.RandN(rng, tensor.Float64, 2, n, n)
		spd, err := prod(a, a, false, true)
		require.NoError(t, err)
		for b := range 2 {
			for i := range n {
				spd.Set(spd.At(b, i, i)+complex(float64(n), 0), b, i, i)
			}
		}
		l, err := choleskyValues(spd, false)
		require.NoError(t, err)
		r := &cholRule{l: l}
		lbar := tensor.RandN(rng, tensor.Float64, 2, n, n)
		got, ok := r.pullbackF64(lbar)
		require.True(t, ok)
		p, err := r.p(lbar)
		require.NoError(t, err)
		g, err := r.sandwich(p)
		require.NoError(t, err)
		want := hermOf(g)
		require.InDeltaSlice(t, want.Float64s(), got.Float64s(), 1e-10, "n = %d", n)
		got, err = r.sandwichHerm(lbar)
		require.NoError(t, err)
		g, err = r.sandwich(lbar)
		require.NoError(t, err)
		require.InDeltaSlice(t, hermOf(g).Float64s(), got.Float64s(), 1e-10, "n = %d", n)
	}
}

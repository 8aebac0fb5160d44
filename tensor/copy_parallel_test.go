package tensor_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// TestCloneSplitOverGoroutines copies permuted views large enough to be split over
// goroutines (by slabs of the outermost axis) and checks every element against the
// copy made on one goroutine, for permutations with and without a tiled axis.
func TestCloneSplitOverGoroutines(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 1)), tensor.Float64, 16, 32, 40, 64) // 1.3M elements
	for _, axes := range [][]int{{3, 1, 0, 2}, {1, 0, 2, 3}, {0, 2, 1, 3}, {2, 3, 0, 1}, {0, 1, 3, 2}} {
		v, err := x.Permute(axes...)
		require.NoError(t, err)
		old := runtime.GOMAXPROCS(1)
		want := v.Clone().Float64s()
		runtime.GOMAXPROCS(4)
		got := v.Clone().Float64s()
		runtime.GOMAXPROCS(old)
		require.Equal(t, want, got, "permutation %v", axes)
		// And against the element-by-element definition, at a sample of indices.
		sh := v.Shape()
		for k := 0; k < len(got); k += 997 {
			idx, r := make([]int, 4), k
			for d := 3; d >= 0; d-- {
				idx[d], r = r%sh[d], r/sh[d]
			}
			require.Equal(t, v.AtFloat64(idx...), got[k])
		}
	}
}

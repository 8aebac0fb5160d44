package tensor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// GemmOn gives the same product bit for bit on 1, 2 and 3 goroutines, for a
// product large enough for the GEMM's parallel driver and for a matrix-vector
// one large enough for the split of its rows, and Gemm's errors for bad sizes.
func TestGemmOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	randn := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	for _, c := range []struct{ m, n, k int }{{200, 300, 150}, {5000, 1, 500}} {
		a, b, c0 := randn(c.m*c.k), randn(c.k*c.n), randn(c.m*c.n)
		var ref []float64
		for _, workers := range []int{1, 2, 3} {
			got := append([]float64(nil), c0...)
			require.NoError(t, tensor.GemmOn(workers, false, false, c.m, c.n, c.k, 1.5, a, c.k, b, c.n, -1, got, c.n))
			if ref == nil {
				ref = got
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%dx%dx%d on %d goroutines: element %d = %v, one goroutine gives %v", c.m, c.n, c.k, workers, i, got[i], ref[i])
				}
			}
		}
	}
	err := tensor.GemmOn(2, false, false, 2, 2, 2, 1.0, make([]float64, 3), 2, make([]float64, 4), 2, 0, make([]float64, 4), 2)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

package tensor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// GemmRows and GemmCols give Gemm's product on the materialised B bit for bit,
// on the project's kernels and under UseBLAS64 (where B is materialised), and
// when b overlaps C; bad sizes and offsets are errors that leave C unchanged.
func TestGemmRowsCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	const m, n, k = 13, 37, 29
	a := make([]float64, m*k)
	b := make([]float64, 4000)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	rowB := make([]int, k) // overlapping rows, as a convolution's shifted windows
	for p := range rowB {
		rowB[p] = 3*p + rng.IntN(40)
	}
	colB := make([]int, n)
	for j := range colB {
		colB[j] = 2*j + rng.IntN(40)
	}
	rows, cols := make([]float64, k*n), make([]float64, k*n)
	for p := range k {
		for j := range n {
			rows[p*n+j] = b[rowB[p]+j]
			cols[p*n+j] = b[colB[j]+p]
		}
	}
	c0 := make([]float64, m*n)
	for i := range c0 {
		c0[i] = rng.NormFloat64()
	}
	for _, blas := range []bool{false, true} {
		tensor.UseBLAS64(blas)
		for _, c := range []struct {
			name string
			mat  []float64
			run  func(c []float64) error
		}{
			{"rows", rows, func(c []float64) error { return tensor.GemmRows(2, false, m, n, k, 1.5, a, k, b, rowB, 0.5, c, n) }},
			{"cols", cols, func(c []float64) error { return tensor.GemmCols(2, false, m, n, k, 1.5, a, k, b, colB, 0.5, c, n) }},
		} {
			want := append([]float64(nil), c0...)
			require.NoError(t, tensor.Gemm(false, false, m, n, k, 1.5, a, k, c.mat, n, 0.5, want, n))
			got := append([]float64(nil), c0...)
			require.NoError(t, c.run(got))
			require.Equal(t, want, got, "%s, blas %v", c.name, blas)
		}
	}
	tensor.UseBLAS64(false)

	// b overlapping C: the product reads B as it was before C is written.
	buf := append([]float64(nil), b...)
	want := make([]float64, m*n)
	require.NoError(t, tensor.Gemm(false, false, m, n, k, 1, a, k, rows, n, 0, want, n))
	require.NoError(t, tensor.GemmRows(1, false, m, n, k, 1, a, k, buf, rowB, 0, buf[:m*n], n))
	require.Equal(t, want, buf[:m*n])

	for _, bad := range []func(c []float64) error{
		func(c []float64) error { return tensor.GemmRows(1, false, m, n, k, 1, a, k, b, rowB[:k-1], 0, c, n) },
		func(c []float64) error { return tensor.GemmRows(1, false, m, n, k, 1, a, k, b[:100], rowB, 0, c, n) },
		func(c []float64) error { return tensor.GemmRows(1, false, m, -1, k, 1, a, k, b, rowB, 0, c, n) },
		func(c []float64) error { return tensor.GemmRows(1, false, m, n, k, 1, a, k-1, b, rowB, 0, c, n) },
		func(c []float64) error { return tensor.GemmCols(1, false, m, n, k, 1, a, k, b, colB[:3], 0, c, n) },
		func(c []float64) error { return tensor.GemmCols(1, false, m, n, k, 1, a, k, b, colB, 0, c[:10], n) },
	} {
		c := append([]float64(nil), c0...)
		require.ErrorIs(t, bad(c), cr.ErrInvalidArgument)
		require.Equal(t, c0, c)
	}
}

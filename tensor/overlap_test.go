package tensor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// over returns a tensor of the given shape over s[lo:lo+size] (capacity clipped,
// so that two tensors over one array have different backing slices).
func over[T tensor.Element](s []T, lo int, shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	t, err := tensor.FromSlice(s[lo:lo+n:lo+n], shape...)
	if err != nil {
		panic(err)
	}
	return t
}

func must(t *tensor.Dense, err error) *tensor.Dense {
	if err != nil {
		panic(err)
	}
	return t
}

// overlapCase is a destination and a source that share storage; make builds them
// afresh over a new array.
type overlapCase struct {
	name string
	make func() (dst, src *tensor.Dense)
}

// overlapCases share storage in the ways a caller can reach: a transposed view of
// the destination, the destination itself, a strided slice reaching past the
// destination's start, and shifted tensors over one array made from capped
// sub-slices (different backing slices), in both dtypes.
func overlapCases() []overlapCase {
	var cases []overlapCase
	for _, n := range []int{3, 5, 16, 19} { // partial tiles and full 8x8 tiles
		cases = append(cases, overlapCase{fmt.Sprintf("transpose%d", n), func() (*tensor.Dense, *tensor.Dense) {
			x := seq(n, n)
			return x, must(x.Transpose(0, 1))
		}})
	}
	cases = append(cases,
		overlapCase{"transpose/complex", func() (*tensor.Dense, *tensor.Dense) {
			x := cseq(9, 9)
			return x, must(x.Transpose(0, 1))
		}},
		overlapCase{"same", func() (*tensor.Dense, *tensor.Dense) {
			x := seq(4, 3)
			return x, x
		}},
		overlapCase{"strided-behind", func() (*tensor.Dense, *tensor.Dense) {
			// dst is s[8:16], src is s[0], s[2], ..., s[14]: dst[0] = s[8] is
			// written before src[4] = s[8] is read.
			s := seq(16).Float64s()
			return over(s, 8, 8), must(over(s, 0, 16).Slice(0, 0, 16, 2))
		}},
		overlapCase{"shifted-transpose", func() (*tensor.Dense, *tensor.Dense) {
			s := seq(20).Float64s()
			return over(s, 0, 4, 4), must(over(s, 4, 4, 4).Transpose(0, 1))
		}},
		overlapCase{"shifted-transpose/complex", func() (*tensor.Dense, *tensor.Dense) {
			s := cseq(30).Complex128s()
			return over(s, 5, 5, 5), must(over(s, 0, 5, 5).Transpose(0, 1))
		}},
		overlapCase{"shifted-broadcast", func() (*tensor.Dense, *tensor.Dense) {
			// src[i, j] = s[i]: row i of dst, s[3i+1 : 3i+4], covers s[i+1] and
			// s[i+2], which later rows read.
			s := seq(13).Float64s()
			col := over(s, 0, 4, 1)
			return over(s, 1, 4, 3), must(col.BroadcastTo(4, 3))
		}},
	)
	return cases
}

// TestCopyOverlap checks Copy into storage that the source shares: the result is
// the source's elements as they were before the copy.
func TestCopyOverlap(t *testing.T) {
	for _, c := range overlapCases() {
		t.Run(c.name, func(t *testing.T) {
			dst, src := c.make()
			want := elems(src)
			require.NoError(t, tensor.Copy(dst, src))
			assert.Equal(t, want, elems(dst))
		})
	}
}

// TestAccumulateOverlap checks Space.Accumulate with a cotangent that shares the
// accumulator's storage: acc + b with both as they were, b unchanged.
func TestAccumulateOverlap(t *testing.T) {
	for _, c := range overlapCases() {
		t.Run(c.name, func(t *testing.T) {
			acc, b := c.make()
			want, err := tensor.Add(acc, b)
			require.NoError(t, err)
			bWas := elems(b)
			got, err := tensor.Space{}.Accumulate(acc, b)
			require.NoError(t, err)
			assert.Equal(t, elems(want), elems(got))
			if got != acc {
				assert.Equal(t, bWas, elems(b), "b was modified")
			}
		})
	}
	// Disjoint tensors over one array are still accumulated in place.
	s := seq(8).Float64s()
	acc, b := over(s, 0, 4), over(s, 4, 4)
	got, err := tensor.Space{}.Accumulate(acc, b)
	require.NoError(t, err)
	assert.Same(t, acc, got)
	assert.Equal(t, []float64{4, 6, 8, 10, 4, 5, 6, 7}, s)
}

// TestAddRowsOverlap checks Space.AddRows with rows that share the accumulator's
// storage, shifted by one row.
func TestAddRowsOverlap(t *testing.T) {
	s := seq(10).Float64s()
	acc := over(s, 2, 4, 2) // rows s[2:4], s[4:6], s[6:8], s[8:10]
	v := over(s, 0, 3, 2)   // rows s[0:2], s[2:4], s[4:6]
	rows := []int{1, 2, 3}
	want := append([]float64{}, s[2:]...)
	for k, r := range rows {
		for j := range 2 {
			want[2*r+j] += s[2*k+j]
		}
	}
	got, err := tensor.Space{}.AddRows(acc, rows, v)
	require.NoError(t, err)
	assert.Equal(t, want, got.Float64s())
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 5}, s[:6], "v was modified")
}

// TestGemmOverlap checks GemmBatch with an output that shares storage with an
// operand: x = x x in place, v = A v, a product into the rows after its operand,
// and a batch over one array; and that disjoint panels of one matrix multiply in place.
func TestGemmOverlap(t *testing.T) {
	ref := func(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) []float64 {
		out := append([]float64{}, c...)
		for i := range m {
			for j := range n {
				s := 0.0
				for p := range k {
					s += a[i*lda+p] * b[p*ldb+j]
				}
				out[i*ldc+j] += s
			}
		}
		return out
	}
	t.Run("square", func(t *testing.T) {
		for _, n := range []int{1, 3, 17, 64, 300} {
			x := seq(n, n).Float64s()
			want := ref(n, n, n, x, n, x, n, make([]float64, n*n), n)
			require.NoError(t, tensor.Gemm(false, false, n, n, n, 1, x, n, x, n, 0, x, n))
			assert.InDeltaSlice(t, want, x, 1e-9*float64(n*n*n*n), "n=%d", n)
		}
	})
	t.Run("matvec", func(t *testing.T) {
		// v = A v: a matrix-vector shape, which runs plain loops.
		a := seq(5, 5).Float64s()
		v := []float64{1, -2, 3, -4, 5}
		want := ref(5, 1, 5, a, 5, v, 1, make([]float64, 5), 1)
		require.NoError(t, tensor.Gemm(false, false, 5, 1, 5, 1, a, 5, v, 1, 0, v, 1))
		assert.Equal(t, want, v)
	})
	t.Run("shifted", func(t *testing.T) {
		// C (rows 2..7 of a 10×6 array) += A (rows 0..5) B (rows 4..9).
		s := seq(60).Float64s()
		c, a, b := s[12:48], s[:36], s[24:60]
		want := ref(6, 6, 6, a, 6, b, 6, c, 6)
		require.NoError(t, tensor.Gemm(false, false, 6, 6, 6, 1, a[:36:36], 6, b[:36:36], 6, 1, c[:36:36], 6))
		assert.Equal(t, want, s[12:48])
	})
	t.Run("batch", func(t *testing.T) {
		// Two 3×3 products whose outputs start 9 elements into the array that
		// holds both operands.
		s := seq(27).Float64s()
		a := s[:18]
		want := append([]float64{}, s...)
		for p := range 2 {
			r := ref(3, 3, 3, a[9*p:], 3, a[9*p:], 3, make([]float64, 9), 3)
			copy(want[9+9*p:], r[:9])
		}
		require.NoError(t, tensor.GemmBatch(false, false, 3, 3, 3, 1, a, 3, 9, a, 3, 9, 0, s[9:], 3, 9, 2))
		assert.Equal(t, want, s)
	})
	t.Run("disjoint-panels", func(t *testing.T) {
		// The trailing update of a blocked factorisation: A22 -= A21 A12 in one
		// 8×8 array.
		const n, nb = 8, 3
		s := seq(n * n).Float64s()
		want := append([]float64{}, s...)
		for i := nb; i < n; i++ {
			for j := nb; j < n; j++ {
				for p := range nb {
					want[i*n+j] -= s[i*n+p] * s[p*n+j]
				}
			}
		}
		require.NoError(t, tensor.Gemm(false, false, n-nb, n-nb, nb, -1, s[nb*n:], n, s[nb:], n, 1, s[nb*n+nb:], n))
		assert.Equal(t, want, s)
	})
}

package tensor_test

import (
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// forEachIndex calls f with every index of shape in row-major order.
func forEachIndex(shape []int, f func(idx []int)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	idx := make([]int, len(shape))
	for {
		f(idx)
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// elems reads t's elements in row-major order through At, the slow reference path.
func elems(t *tensor.Dense) []complex128 {
	var out []complex128
	forEachIndex(t.Shape(), func(idx []int) { out = append(out, t.At(idx...)) })
	return out
}

// seq returns a float64 tensor of the given shape holding 0, 1, 2, ... row-major.
func seq(shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i)
	}
	t, err := tensor.FromFloat64(data, shape...)
	if err != nil {
		panic(err)
	}
	return t
}

// cseq is seq for complex128: element i is complex(i, -i/2).
func cseq(shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	data := make([]complex128, n)
	for i := range data {
		data[i] = complex(float64(i), -float64(i)/2)
	}
	t, err := tensor.FromComplex128(data, shape...)
	if err != nil {
		panic(err)
	}
	return t
}

// assertClose checks that got has the given shape and row-major elements want
// (within 1e-12 relative).
func assertClose(t *testing.T, want []complex128, wantShape []int, got *tensor.Dense) {
	t.Helper()
	require.NotNil(t, got)
	require.Equal(t, len(wantShape), got.Rank(), "rank of %v", got.Describe())
	if len(wantShape) > 0 {
		require.Equal(t, wantShape, got.Shape())
	}
	g := elems(got)
	require.Len(t, g, len(want))
	for i := range want {
		if cmplx.Abs(g[i]-want[i]) > 1e-12*(1+cmplx.Abs(want[i])) {
			assert.Failf(t, "element differs", "element %d: got %v, want %v", i, g[i], want[i])
			return
		}
	}
}

// randView returns a random strided view of a random tensor of the given dtype,
// obtained by permuting, slicing, broadcasting and transposing.
func randView(rng *rand.Rand, dt tensor.DType) *tensor.Dense {
	rank := rng.IntN(4)
	shape := make([]int, rank)
	for k := range shape {
		shape[k] = 1 + rng.IntN(4)
	}
	t := tensor.RandN(rng, dt, shape...)
	if rank == 0 {
		return t
	}
	for range 3 {
		var err error
		switch rng.IntN(4) {
		case 0:
			t, err = t.Permute(rng.Perm(t.Rank())...)
		case 1:
			ax := rng.IntN(t.Rank())
			d := t.Shape()[ax]
			start := rng.IntN(d)
			stop := start + 1 + rng.IntN(d-start)
			t, err = t.Slice(ax, start, stop, 1+rng.IntN(2))
		case 2:
			// Broadcast a size-1 axis, or prepend a new one.
			shape := append([]int{}, t.Shape()...)
			if ax := rng.IntN(len(shape)); shape[ax] == 1 {
				shape[ax] = 3
			} else {
				shape = append([]int{2}, shape...)
			}
			if len(shape) <= 5 {
				t, err = t.BroadcastTo(shape...)
			}
		case 3:
			t, err = t.Transpose(0, t.Rank()-1)
		}
		if err != nil {
			panic(err)
		}
	}
	return t
}

package tensor_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// stridedView returns a random view of rank r of a fresh random tensor: each axis is
// sliced with a random start and step, then the axes are permuted, and some axes are
// collapsed to one element and broadcast back (stride 0). dims are drawn from a set
// that exercises the copy kernel's full and partial 8x8 tiles, size-1 axes and, when
// zero is set, a size-0 axis.
func stridedView(rng *rand.Rand, dt tensor.DType, r int, zero bool) *tensor.Dense {
	sizes := []int{1, 2, 3, 5, 8, 9, 17}
	if r <= 2 {
		sizes = append(sizes, 24, 40)
	}
	shape := make([]int, r)
	base := make([]int, r)
	steps := make([]int, r)
	starts := make([]int, r)
	for k := range shape {
		shape[k] = sizes[rng.IntN(len(sizes))]
		if zero && k == r-1-rng.IntN(r) {
			shape[k] = 0
		}
		steps[k] = 1 + rng.IntN(2)
		starts[k] = rng.IntN(2)
		base[k] = starts[k] + max(shape[k]*steps[k], 1) + rng.IntN(2)
	}
	t := tensor.RandN(rng, dt, base...)
	var err error
	for k := range r {
		stop := starts[k] + shape[k]*steps[k]
		if stop > base[k] {
			stop = base[k]
		}
		if t, err = t.Slice(k, starts[k], stop, steps[k]); err != nil {
			panic(err)
		}
	}
	if t, err = t.Permute(rng.Perm(r)...); err != nil {
		panic(err)
	}
	if r > 0 && rng.IntN(2) == 0 {
		ax := rng.IntN(r)
		full := append([]int{}, t.Shape()...)
		if full[ax] > 0 {
			if t, err = t.Slice(ax, 0, 1, 1); err != nil {
				panic(err)
			}
			if t, err = t.BroadcastTo(full...); err != nil {
				panic(err)
			}
		}
	}
	return t
}

// TestCopyKernel compares every copying path of a strided view (Clone, Contiguous,
// Float64s/Complex128s, Copy, Reshape to a flat vector) with the element loop through
// At, on random views of ranks 0 to 6.
func TestCopyKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for r := range 7 {
			for trial := range 12 {
				v := stridedView(rng, dt, r, trial%4 == 3)
				t.Run(fmt.Sprintf("%v/rank%d/%d/%v%v", dt, r, trial, v.Shape(), v.Strides()), func(t *testing.T) {
					want := elems(v)
					check := func(what string, got *tensor.Dense) {
						t.Helper()
						require.True(t, got.IsContiguous(), what)
						require.Equal(t, v.Shape(), got.Shape(), what)
						assert.Equal(t, want, elems(got), what)
					}
					c := v.Clone()
					check("Clone", c)
					check("Contiguous", v.Contiguous())
					dst := tensor.New(dt, v.Shape()...)
					require.NoError(t, tensor.Copy(dst, v))
					check("Copy", dst)
					flat, err := v.Reshape(-1)
					if v.Size() == 0 {
						flat, err = v.Reshape(0)
					}
					require.NoError(t, err)
					assert.Equal(t, want, elems(flat), "Reshape")
					if dt == tensor.Float64 {
						got := v.Float64s()
						require.Len(t, got, len(want))
						for i, x := range got {
							require.Equal(t, want[i], complex(x, 0), "Float64s element %d", i)
						}
					} else {
						assert.Equal(t, want, nilIfEmpty(v.Complex128s()), "Complex128s")
					}
					// A clone never aliases the view: writing it leaves v unchanged.
					if c.Size() > 0 {
						c.Set(complex(1e300, 0), make([]int, c.Rank())...)
						assert.Equal(t, want, elems(v), "Clone aliases its source")
					}
				})
			}
		}
	}
}

// TestCopyPermutations checks the tiled path on every permutation of a rank-4
// tensor whose dims give full and partial tiles.
func TestCopyPermutations(t *testing.T) {
	x := cseq(9, 16, 3, 17)
	var perms [][]int
	var gen func(p []int, used int)
	gen = func(p []int, used int) {
		if len(p) == 4 {
			perms = append(perms, append([]int{}, p...))
			return
		}
		for a := range 4 {
			if used&(1<<a) == 0 {
				gen(append(p, a), used|1<<a)
			}
		}
	}
	gen(nil, 0)
	for _, p := range perms {
		v, err := x.Permute(p...)
		require.NoError(t, err)
		assert.Equal(t, elems(v), elems(v.Contiguous()), "permutation %v", p)
	}
}

func TestCopyErrors(t *testing.T) {
	src := seq(2, 3)
	tr, err := tensor.New(tensor.Float64, 3, 2).Transpose(0, 1)
	require.NoError(t, err)
	cases := []struct {
		name string
		dst  *tensor.Dense
		want error
	}{
		{"shape", tensor.New(tensor.Float64, 3, 2), cr.ErrShapeMismatch},
		{"dtype", tensor.New(tensor.Complex128, 2, 3), cr.ErrShapeMismatch},
		{"non-contiguous", tr, cr.ErrInvalidArgument},
		{"nil", nil, cr.ErrInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := tensor.Copy(c.dst, src)
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.want), "%v", err)
			if c.dst != nil {
				assert.Contains(t, err.Error(), "copy:")
			}
		})
	}
}

// nilIfEmpty returns x, or nil if x is empty (elems returns nil for empty tensors).
func nilIfEmpty(x []complex128) []complex128 {
	if len(x) == 0 {
		return nil
	}
	return x
}

// A copy of a small tensor allocates its result and nothing else (the header and
// the storage), whatever the layout of the source: the gather kernel keeps its
// coalesced layout on the stack.
func TestCloneAllocatesOnlyTheResult(t *testing.T) {
	for _, dt := range tensor.AllDTypes() {
		x := tensor.Full(dt, 1.5, 3, 4)
		xt, err := x.Transpose(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := x.Slice(0, 0, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []*tensor.Dense{x, xt, rows} {
			if n := testing.AllocsPerRun(100, func() { _ = v.Clone() }); n != 2 {
				t.Errorf("Clone of %s (strides %v): %v allocations, want 2", v.Describe(), v.Strides(), n)
			}
		}
	}
}

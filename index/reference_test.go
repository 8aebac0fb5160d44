package index_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// build returns the tensor of the given dtype and shape with element f(idx), by a
// naive odometer over every multi-index.
func build(dt tensor.DType, shape []int, f func(idx []int) complex128) *tensor.Dense {
	out := tensor.New(dt, shape...)
	if out.Size() == 0 {
		return out
	}
	idx := make([]int, len(shape))
	for {
		out.Set(f(idx), idx...)
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

func requireEqual(t *testing.T, want, got *tensor.Dense, err error) {
	t.Helper()
	require.NoError(t, err)
	require.Equal(t, want.Shape(), got.Shape())
	require.Equal(t, want.DType(), got.DType())
	require.True(t, tensor.EqualApprox(want, got, 0, 0), "want %v\ngot  %v", want, got)
}

func TestSliceReference(t *testing.T) {
	// Python's range(*slice(start, stop, step).indices(n)), written out by hand.
	cases := []struct {
		n    int
		r    index.Range
		want []int
	}{
		{5, index.Range{Start: 1, Stop: index.End, Step: 2}, []int{1, 3}},
		{5, index.Range{Start: -4, Stop: -1}, []int{1, 2, 3}},
		{5, index.Range{Start: -10, Stop: 100, Step: 3}, []int{0, 3}},
		{5, index.Range{Start: 3, Stop: 1}, []int{}},
		{5, index.Range{Stop: -1}, []int{0, 1, 2, 3}},
		{5, index.All, []int{0, 1, 2, 3, 4}},
		{4, index.Range{Start: 1, Stop: 4, Step: 5}, []int{1}},
		{0, index.Range{Start: 1, Stop: 3}, []int{}},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
			x := tensor.RandN(rng, dt, 2, c.n, 3)
			got, err := index.Slice(x, index.All, c.r)
			want := build(dt, []int{2, len(c.want), 3}, func(i []int) complex128 { return x.At(i[0], c.want[i[1]], i[2]) })
			requireEqual(t, want, got, err)
		}
	}
	// Two ranges at once, on a strided (transposed) input.
	x := tensor.RandN(rng, tensor.Complex128, 5, 4)
	xt, err := x.Transpose(0, 1)
	require.NoError(t, err)
	got, err := index.Slice(xt, index.Range{Start: 1, Stop: index.End, Step: 2}, index.Range{Start: -2, Stop: index.End})
	want := build(tensor.Complex128, []int{2, 2}, func(i []int) complex128 { return x.At(3+i[1], 1+2*i[0]) })
	requireEqual(t, want, got, err)
}

func TestViewOpsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := tensor.RandN(rng, tensor.Complex128, 3, 4, 5)

	got, err := index.Narrow(x, 1, -3, 2)
	requireEqual(t, build(tensor.Complex128, []int{3, 2, 5}, func(i []int) complex128 { return x.At(i[0], 1+i[1], i[2]) }), got, err)

	got, err = index.Select(x, 1, -1)
	requireEqual(t, build(tensor.Complex128, []int{3, 5}, func(i []int) complex128 { return x.At(i[0], 3, i[1]) }), got, err)

	// diagonal(offset=-1, dim1=2, dim2=0): dim1 runs from 1, dim2 from 0.
	got, err = index.Diagonal(x, -1, 2, 0)
	requireEqual(t, build(tensor.Complex128, []int{4, 3}, func(i []int) complex128 { return x.At(i[1], i[0], i[1]+1) }), got, err)
	got, err = index.Diagonal(x, 2, 1, 2)
	requireEqual(t, build(tensor.Complex128, []int{3, 3}, func(i []int) complex128 { return x.At(i[0], i[1], i[1]+2) }), got, err)
	got, err = index.Diagonal(x, -4, 1, 2)
	requireEqual(t, tensor.New(tensor.Complex128, 3, 0), got, err)

	got, err = index.Flip(x, 0, -1)
	requireEqual(t, build(tensor.Complex128, []int{3, 4, 5}, func(i []int) complex128 { return x.At(2-i[0], i[1], 4-i[2]) }), got, err)

	got, err = index.Roll(x, []int{1, -7, 2}, []int{0, 2, 2})
	// Shifts on axis 2 add up to -5, a full turn.
	requireEqual(t, build(tensor.Complex128, []int{3, 4, 5}, func(i []int) complex128 { return x.At((i[0]+2)%3, i[1], i[2]) }), got, err)
	got, err = index.Roll(x, []int{-1, 7}, []int{1, 2})
	requireEqual(t, build(tensor.Complex128, []int{3, 4, 5}, func(i []int) complex128 { return x.At(i[0], (i[1]+1)%4, (i[2]+3)%5) }), got, err)

	got, err = index.Pad(x, [2]int{0, 1}, [2]int{2, 0}, [2]int{1, 1})
	requireEqual(t, build(tensor.Complex128, []int{4, 6, 7}, func(i []int) complex128 {
		a, b, c := i[0], i[1]-2, i[2]-1
		if a >= 3 || b < 0 || c < 0 || c >= 5 {
			return 0
		}
		return x.At(a, b, c)
	}), got, err)

	parts, err := index.Split(x, 2, 1, 0, 4)
	require.NoError(t, err)
	require.Len(t, parts, 3)
	requireEqual(t, build(tensor.Complex128, []int{3, 4, 1}, func(i []int) complex128 { return x.At(i[0], i[1], 0) }), parts[0], nil)
	requireEqual(t, tensor.New(tensor.Complex128, 3, 4, 0), parts[1], nil)
	requireEqual(t, build(tensor.Complex128, []int{3, 4, 4}, func(i []int) complex128 { return x.At(i[0], i[1], 1+i[2]) }), parts[2], nil)
}

func TestChunkSizes(t *testing.T) {
	for _, c := range []struct {
		n, chunks int
		want      []int
	}{
		{10, 3, []int{4, 4, 2}},
		{6, 3, []int{2, 2, 2}},
		{5, 4, []int{2, 2, 1}}, // PyTorch gives 3 chunks here
		{2, 5, []int{1, 1}},
		{0, 3, []int{0}},
	} {
		got, err := index.ChunkSizes(c.n, c.chunks)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "n=%d chunks=%d", c.n, c.chunks)
	}
}

// TestChunkSizesExtreme checks chunk counts and axis sizes near the int limit, where
// ceil(n/chunks) written as (n+chunks-1)/chunks overflows: the sizes are positive,
// at most ceil(n/chunks), at most chunks of them, and add up to n; a number of
// pieces that memory cannot hold is an error, found before any piece is made.
func TestChunkSizesExtreme(t *testing.T) {
	for _, c := range []struct{ n, chunks int }{
		// The old formula returned a negative size for the first two and looped
		// without end, appending, on the next two.
		{math.MaxInt, 3},
		{math.MaxInt, 1 << 10},
		{3, math.MaxInt},
		{5, math.MaxInt - 1},
		{1 << 40, 1 << 20},
	} {
		got, err := index.ChunkSizes(c.n, c.chunks)
		require.NoError(t, err, "n=%d chunks=%d", c.n, c.chunks)
		require.LessOrEqual(t, len(got), c.chunks)
		ceil := c.n/c.chunks + min(c.n%c.chunks, 1)
		left := c.n
		for k, v := range got {
			require.True(t, 0 < v && v <= ceil && v <= left, "piece %d of n=%d chunks=%d is %d", k, c.n, c.chunks, v)
			left -= v
		}
		require.Zero(t, left, "n=%d chunks=%d", c.n, c.chunks)
	}
	for _, c := range []struct{ n, chunks int }{{1 << 62, 1 << 62}, {math.MaxInt - 1, math.MaxInt}} {
		_, err := index.ChunkSizes(c.n, c.chunks) // as many pieces of size 1
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "chunk")
	}
}

func TestIndexingReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := tensor.RandN(rng, tensor.Float64, 3, 4)

	idx := []int{0, 0, 3, -1, 2, 2}
	got, err := index.Gather(x, 1, idx, 3, 2)
	requireEqual(t, build(tensor.Float64, []int{3, 2}, func(i []int) complex128 { return x.At(i[0], (idx[2*i[0]+i[1]]+4)%4) }), got, err)

	got, err = index.IndexSelect(x, 0, 2, -3, 2)
	rows := []int{2, 0, 2}
	requireEqual(t, build(tensor.Float64, []int{3, 4}, func(i []int) complex128 { return x.At(rows[i[0]], i[1]) }), got, err)

	// scatter_add along axis 0 with repeats: a loop over the index.
	sidx := []int{0, 2, 2, 0, 0, 2, 1, -1}
	src := tensor.RandN(rng, tensor.Complex128, 2, 4)
	want := x.AsComplex().Clone()
	for p := range 2 {
		for j := range 4 {
			r := (sidx[4*p+j] + 3) % 3
			want.Set(want.At(r, j)+src.At(p, j), r, j)
		}
	}
	got, err = index.ScatterAdd(x, 0, sidx, []int{2, 4}, src)
	require.NoError(t, err)
	require.True(t, tensor.EqualApprox(want, got, 1e-15, 1e-15))

	mask := []bool{true, false, true}
	a, b := tensor.RandN(rng, tensor.Float64, 1, 4), tensor.RandN(rng, tensor.Complex128, 3, 4)
	got, err = index.Where(mask, []int{3, 1}, a, b)
	requireEqual(t, build(tensor.Complex128, []int{3, 4}, func(i []int) complex128 {
		if mask[i[0]] {
			return a.At(0, i[1])
		}
		return b.At(i[0], i[1])
	}), got, err)
}

func TestJoinReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a, b, c := tensor.RandN(rng, tensor.Float64, 2, 1, 3), tensor.RandN(rng, tensor.Complex128, 2, 2, 3), tensor.RandN(rng, tensor.Float64, 2, 0, 3)
	got, err := index.Concat(-2, a, c, b)
	requireEqual(t, build(tensor.Complex128, []int{2, 3, 3}, func(i []int) complex128 {
		if i[1] == 0 {
			return a.At(i[0], 0, i[2])
		}
		return b.At(i[0], i[1]-1, i[2])
	}), got, err)

	p, q := tensor.RandN(rng, tensor.Float64, 2, 3), tensor.RandN(rng, tensor.Float64, 2, 3)
	for axis, f := range map[int]func(i []int) complex128{
		0:  func(i []int) complex128 { return []*tensor.Dense{p, q}[i[0]].At(i[1], i[2]) },
		1:  func(i []int) complex128 { return []*tensor.Dense{p, q}[i[1]].At(i[0], i[2]) },
		-1: func(i []int) complex128 { return []*tensor.Dense{p, q}[i[2]].At(i[0], i[1]) },
	} {
		got, err := index.Stack(axis, p, q)
		shape := []int{2, 3}
		shape = append(shape[:(axis+3)%3], append([]int{2}, shape[(axis+3)%3:]...)...)
		requireEqual(t, build(tensor.Float64, shape, f), got, err)
	}
}

// The outputs are fresh: writing into one does not touch the input.
func TestOutputsDoNotAlias(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4)
	require.NoError(t, err)
	for _, f := range []func() (*tensor.Dense, error){
		func() (*tensor.Dense, error) { return index.Slice(x, index.All) },
		func() (*tensor.Dense, error) { return index.Concat(0, x) },
		func() (*tensor.Dense, error) { return index.Roll(x, []int{0}, []int{0}) },
	} {
		y, err := f()
		require.NoError(t, err)
		y.Set(100, 0)
		require.Equal(t, 1.0, x.AtFloat64(0))
	}
}

// Repeated indices accumulate in the pullbacks of gather and index_select.
func TestRepeatedIndicesAccumulate(t *testing.T) {
	x := tensor.New(tensor.Float64, 5)
	ones := tensor.Ones(tensor.Float64, 4)
	want, err := tensor.FromFloat64([]float64{0, 3, 0, 0, 1}, 5)
	require.NoError(t, err)
	for _, op := range []cr.Op[*tensor.Dense]{index.IndexSelectOp(0, 1, 1, -4, 4), index.GatherOp(0, []int{1, -4, 1, 4}, 4)} {
		_, rule, err := apply(op, ids(1), []*tensor.Dense{x})
		require.NoError(t, err)
		cs, err := rule.Pullback([]*tensor.Dense{ones}, []bool{true}, nil)
		requireEqual(t, want, cs[0].Value, err)
	}
	// scatter_add's src cotangent is the gather of ybar, read once per index.
	_, rule, err := apply(index.ScatterAddOp(0, []int{1, 1, 4}, 3), ids(2), []*tensor.Dense{x, tensor.New(tensor.Float64, 3)})
	require.NoError(t, err)
	ybar, err := tensor.FromFloat64([]float64{10, 11, 12, 13, 14}, 5)
	require.NoError(t, err)
	cs, err := rule.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil)
	requireEqual(t, ybar, cs[0].Value, err)
	wantSrc, err := tensor.FromFloat64([]float64{11, 11, 14}, 3)
	requireEqual(t, wantSrc, cs[1].Value, err)
}

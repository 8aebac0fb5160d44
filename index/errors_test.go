package index_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := tensor.RandN(rng, tensor.Float64, 3, 4)
	y := tensor.RandN(rng, tensor.Float64, 2, 5)
	inv, mis := cr.ErrInvalidArgument, cr.ErrShapeMismatch
	cases := []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		inputs []*tensor.Dense
		is     error
		says   []string // substrings of the message: op, axis, value
	}{
		{"slice negative step", index.SliceOp(index.All, index.Range{Stop: index.End, Step: -1}), []*tensor.Dense{x}, inv, []string{"slice", "axis 1", "step -1"}},
		{"slice too many ranges", index.SliceOp(index.All, index.All, index.All), []*tensor.Dense{x}, inv, []string{"slice", "3 ranges", "rank 2"}},
		{"slice no input", index.SliceOp(), nil, inv, []string{"slice", "0 inputs"}},
		{"slice nil input", index.SliceOp(), []*tensor.Dense{nil}, inv, []string{"slice", "nil"}},
		{"narrow past end", index.NarrowOp(1, 2, 3), []*tensor.Dense{x}, inv, []string{"narrow", "axis 1", "start 2", "length 3", "size 4"}},
		{"narrow huge length", index.NarrowOp(1, 1, math.MaxInt), []*tensor.Dense{x}, inv, []string{"narrow", "axis 1"}},
		{"pad overflow", index.PadOp([2]int{0, 0}, [2]int{math.MaxInt, 1}), []*tensor.Dense{x}, inv, []string{"pad", "axis 1", "overflow"}},
		{"pad too many elements", index.PadOp([2]int{0, math.MaxInt / 2}, [2]int{0, 0}), []*tensor.Dense{x}, inv, []string{"pad", "too many"}},
		{"gather shape overflow", index.GatherOp(0, nil, math.MaxInt/2, 4), []*tensor.Dense{x}, inv, []string{"gather", "indices"}},
		{"narrow negative length", index.NarrowOp(0, 0, -1), []*tensor.Dense{x}, inv, []string{"narrow", "length -1"}},
		{"narrow axis", index.NarrowOp(2, 0, 1), []*tensor.Dense{x}, inv, []string{"narrow", "axis 2", "rank 2"}},
		{"select index", index.SelectOp(0, 3), []*tensor.Dense{x}, inv, []string{"select", "index 3", "axis 0", "size 3"}},
		{"select negative index", index.SelectOp(-1, -5), []*tensor.Dense{x}, inv, []string{"select", "index -5", "axis -1"}},
		{"diagonal same axis", index.DiagonalOp(0, 1, -1), []*tensor.Dense{x}, inv, []string{"diagonal", "axis1 1", "axis2 -1"}},
		{"diagonal axis", index.DiagonalOp(0, 0, 5), []*tensor.Dense{x}, inv, []string{"diagonal", "axis 5"}},
		{"gather index", index.GatherOp(1, []int{0, 4}, 1, 2), []*tensor.Dense{x}, inv, []string{"gather", "index 4", "axis 1", "size 4"}},
		{"gather index rank", index.GatherOp(1, []int{0, 1}, 2), []*tensor.Dense{x}, inv, []string{"gather", "ranks"}},
		{"gather index too big", index.GatherOp(1, make([]int, 8), 4, 2), []*tensor.Dense{x}, inv, []string{"gather", "axis 0"}},
		{"gather short index", index.GatherOp(0, []int{0}, 1, 2), []*tensor.Dense{x}, inv, []string{"gather", "1 indices"}},
		{"index_select", index.IndexSelectOp(0, 1, -4), []*tensor.Dense{x}, inv, []string{"index_select", "index -4", "axis 0"}},
		{"scatter_add src shape", index.ScatterAddOp(0, []int{0, 1}, 1, 2), []*tensor.Dense{x, y}, mis, []string{"scatter_add", "src"}},
		{"scatter_add index", index.ScatterAddOp(0, []int{0, 3}, 1, 2), []*tensor.Dense{x, tensor.New(tensor.Float64, 1, 2)}, inv, []string{"scatter_add", "index 3", "axis 0"}},
		{"concat dims", index.ConcatOp(0), []*tensor.Dense{x, y}, mis, []string{"concat", "axis 1", "[2 5]"}},
		{"concat rank", index.ConcatOp(0), []*tensor.Dense{x, tensor.New(tensor.Float64, 3)}, mis, []string{"concat", "rank 1"}},
		{"concat scalar", index.ConcatOp(0), []*tensor.Dense{tensor.Scalar(1)}, inv, []string{"concat", "axis 0", "rank 0"}},
		{"concat none", index.ConcatOp(0), nil, inv, []string{"concat", "at least one"}},
		{"stack shapes", index.StackOp(0), []*tensor.Dense{x, y}, mis, []string{"stack", "input 1", "[2 5]"}},
		{"stack axis", index.StackOp(3), []*tensor.Dense{x}, inv, []string{"stack", "axis 3"}},
		{"pad width", index.PadOp([2]int{0, 0}, [2]int{1, -2}), []*tensor.Dense{x}, inv, []string{"pad", "axis 1", "-2"}},
		{"pad pairs", index.PadOp([2]int{0, 0}), []*tensor.Dense{x}, inv, []string{"pad", "1 width pairs", "rank 2"}},
		{"flip repeated", index.FlipOp(1, -1), []*tensor.Dense{x}, inv, []string{"flip", "axis -1", "twice"}},
		{"flip axis", index.FlipOp(-3), []*tensor.Dense{x}, inv, []string{"flip", "axis -3"}},
		{"roll lengths", index.RollOp([]int{1}, []int{0, 1}), []*tensor.Dense{x}, inv, []string{"roll", "1 shifts", "2 axes"}},
		{"roll axis", index.RollOp([]int{1}, []int{2}), []*tensor.Dense{x}, inv, []string{"roll", "axis 2"}},
		{"where mask length", index.WhereOp([]bool{true}, 2), []*tensor.Dense{x, x}, inv, []string{"where", "1 mask elements", "[2]"}},
		{"where broadcast", index.WhereOp([]bool{true, false}, 2), []*tensor.Dense{x, x}, mis, []string{"where", "mask [2]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var y *tensor.Dense
			var err error
			require.NotPanics(t, func() { y, _, err = apply(c.op, ids(len(c.inputs)), c.inputs) })
			require.Error(t, err)
			assert.Nil(t, y)
			assert.True(t, errors.Is(err, c.is), "%v does not wrap %v", err, c.is)
			for _, s := range c.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// A bad parameter becomes the tape's sticky error, and the chunk helper reports a
// bad chunk count the same way.
func TestTapeErrors(t *testing.T) {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.New(tensor.Float64, 3, 4))
	y := tape.Apply(index.SelectOp(0, 7), x)
	assert.False(t, y.Valid())
	require.ErrorIs(t, tape.Err(), cr.ErrInvalidArgument)
	assert.Contains(t, tape.Err().Error(), "select")

	tape = core.NewTape[*tensor.Dense](tensor.Space{})
	x = tape.Leaf(tensor.New(tensor.Float64, 3, 4))
	assert.Nil(t, index.ApplyChunk(tape, x, 1, 0))
	require.ErrorIs(t, tape.Err(), cr.ErrInvalidArgument)

	tape = core.NewTape[*tensor.Dense](tensor.Space{})
	x = tape.Leaf(tensor.New(tensor.Float64, 3, 4))
	assert.Nil(t, index.ApplySplit(tape, x, 1, 1, 1))
	require.ErrorIs(t, tape.Err(), cr.ErrInvalidArgument)
}

// Chunks recorded on a tape pull back to the pieces of the gradient.
func TestApplyChunkGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	v := tensor.RandN(rng, tensor.Complex128, 2, 7)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(v)
	parts := index.ApplyChunk(tape, x, -1, 3)
	require.NoError(t, tape.Err())
	require.Len(t, parts, 3)
	// Join the chunks in another order and pull back a random cotangent: the
	// gradient is the cotangent's columns put back in place.
	z := tape.Apply(index.ConcatOp(1), parts[2], parts[0], parts[1])
	ybar := tensor.RandN(rng, tensor.Complex128, 2, 7)
	g, err := tape.BackwardSeed(z, ybar)
	require.NoError(t, err)
	gx, ok := g.Of(x)
	require.True(t, ok)
	// z = [x[:, 6:7], x[:, 0:3], x[:, 3:6]], so xbar[:, j] = ybar[:, pos(j)].
	pos := []int{1, 2, 3, 4, 5, 6, 0}
	want := build(tensor.Complex128, []int{2, 7}, func(i []int) complex128 { return ybar.At(i[0], pos[i[1]]) })
	require.True(t, tensor.EqualApprox(want, gx, 0, 0), "got %v want %v", gx, want)
}

// Extreme parameters that are valid give the right answer instead of overflowing.
func TestExtremeParameters(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	for _, off := range []int{math.MinInt, math.MaxInt, -2, 3} {
		y, err := index.Diagonal(x, off, 0, 1)
		require.NoError(t, err)
		assert.Equal(t, []int{0}, y.Shape(), "offset %d", off)
	}
	y, err := index.Roll(x, []int{math.MaxInt, math.MinInt}, []int{1, 1})
	require.NoError(t, err)
	// MaxInt + MinInt = -1.
	want, err := index.Roll(x, []int{-1}, []int{1})
	require.NoError(t, err)
	assert.True(t, tensor.EqualApprox(want, y, 0, 0), "got %v, want %v", y, want)
	y, err = index.Slice(x, index.All, index.Range{Start: math.MinInt, Stop: math.MaxInt, Step: math.MaxInt})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 1}, y.Shape())
}

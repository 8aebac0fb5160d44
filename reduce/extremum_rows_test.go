package reduce_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestExtremumVectorRows checks the row-sparse pullback of the maximum and
// minimum of a whole vector through a tape, with ties (split evenly), with a
// dense cotangent already at the input (the row term is added to it), and
// with more ties than a row term takes (the dense pullback).
func TestExtremumVectorRows(t *testing.T) {
	many := make([]float64, 100)
	manyWant := make([]float64, 100)
	for i := range many {
		many[i], manyWant[i] = 2, 0.01
	}
	// Long vectors: the ties are found block by block (the first and last
	// element of a block, the short last block), and a vector whose extremum is
	// NaN or a signed zero.
	long := func(n int, fill float64, at map[int]float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = fill - float64(i%7)
		}
		for i, v := range at {
			x[i] = v
		}
		return x
	}
	grad := func(n int, w map[int]float64) []float64 {
		g := make([]float64, n)
		for i, v := range w {
			g[i] = v
		}
		return g
	}
	nan := math.NaN()
	for _, c := range []struct {
		name string
		max  bool
		x    []float64
		want []float64 // d max(x) / dx, or d min(x) / dx
	}{
		{"max, one", true, []float64{1, 5, 3, 2}, []float64{0, 1, 0, 0}},
		{"max, three ties", true, []float64{1, 3, 3, 2, 3}, []float64{0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3}},
		{"min, two ties", false, []float64{-1, 3, -1, 2}, []float64{0.5, 0, 0.5, 0}},
		{"max, all tied", true, many, manyWant},
		{"max, long, ties at block edges", true, long(1000, 0, map[int]float64{0: 9, 255: 9, 256: 9, 999: 9}),
			grad(1000, map[int]float64{0: 0.25, 255: 0.25, 256: 0.25, 999: 0.25})},
		{"min, long, one in the short last block", false, long(1001, 50, map[int]float64{1000: -3}),
			grad(1001, map[int]float64{1000: 1})},
		{"max, long, +0 and -0 tie", true, long(600, -1, map[int]float64{10: math.Copysign(0, -1), 590: 0}),
			grad(600, map[int]float64{10: 0.5, 590: 0.5})},
		{"max, long, NaN", true, long(600, 0, map[int]float64{300: nan, 301: 5}),
			grad(600, map[int]float64{300: 1})},
		// Longer than a chunk (2048) of the forward pass: the ties are looked
		// for only in the chunks that attain the extremum.
		{"max, chunks, ties in three chunks", true, long(5000, 0, map[int]float64{100: 9, 2047: 9, 2048: 9, 4999: 9}),
			grad(5000, map[int]float64{100: 0.25, 2047: 0.25, 2048: 0.25, 4999: 0.25})},
		{"min, chunks, one in the last chunk", false, long(4097, 50, map[int]float64{4096: -3}),
			grad(4097, map[int]float64{4096: 1})},
		{"max, chunks, -0 and +0 in two chunks", true, long(6000, -1, map[int]float64{3: math.Copysign(0, -1), 5000: 0}),
			grad(6000, map[int]float64{3: 0.5, 5000: 0.5})},
		{"max, chunks, NaN after the largest", true, long(6000, 0, map[int]float64{10: 7, 4500: nan}),
			grad(6000, map[int]float64{4500: 1})},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := tensor.FromFloat64(append([]float64(nil), c.x...), len(c.x))
			require.NoError(t, err)
			op := reduce.MinOp(nil, false)
			if c.max {
				op = reduce.MaxOp(nil, false)
			}
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			leaf := tp.Leaf(x)
			out := tp.Apply(op, leaf)
			g, err := tp.Backward(out)
			require.NoError(t, err)
			got, ok := g.Of(leaf)
			require.True(t, ok)
			assert.InDeltaSlice(t, c.want, got.Float64s(), 1e-15)

			// y + sum(x): the row term lands on the dense ones of the sum.
			tp2 := core.NewTape[*tensor.Dense](tensor.Space{})
			leaf2 := tp2.Leaf(x)
			s := tp2.Apply(reduce.SumOp(nil, false), leaf2)
			out2 := tp2.Apply(elementwise.AddOp, tp2.Apply(op, leaf2), s)
			g2, err := tp2.Backward(out2)
			require.NoError(t, err)
			got2, ok := g2.Of(leaf2)
			require.True(t, ok)
			for i := range c.want {
				assert.InDelta(t, c.want[i]+1, got2.Float64s()[i], 1e-15)
			}
		})
	}
}

// TestExtremumLaneTies checks the pullback of the minimum and maximum over
// lanes long enough for the vectorised tie search (32 elements and more): one
// tie at every position of a lane, two ties (split), and a -0 tying +0.
func TestExtremumLaneTies(t *testing.T) {
	for _, k := range []int{32, 45} {
		for _, isMax := range []bool{false, true} {
			var xs, want []float64
			lane := func(ties ...int) {
				row := make([]float64, k)
				w := make([]float64, k)
				for i := range row {
					row[i] = float64(i%5 + 1)
					if isMax {
						row[i] = -row[i]
					}
				}
				for _, at := range ties {
					row[at], w[at] = 0, 1/float64(len(ties))
				}
				xs, want = append(xs, row...), append(want, w...)
			}
			for at := range k {
				lane(at)
			}
			lane(0, k-1)
			lane(7, 8)
			lane(31, 3)
			rows := len(xs) / k
			xs[len(xs)-k+3] = math.Copysign(0, -1) // the last lane's ties: -0 and +0
			x, err := tensor.FromFloat64(xs, rows, k)
			require.NoError(t, err)
			op := reduce.MinOp([]int{1}, false)
			if isMax {
				op = reduce.MaxOp([]int{1}, false)
			}
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			leaf := tp.Leaf(x)
			out := tp.Apply(reduce.SumOp(nil, false), tp.Apply(op, leaf))
			g, err := tp.Backward(out)
			require.NoError(t, err)
			got, ok := g.Of(leaf)
			require.True(t, ok)
			assert.Equal(t, want, got.Float64s(), "k=%d max=%v", k, isMax)
		}
	}
}

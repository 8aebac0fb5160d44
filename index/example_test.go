package index_test

import (
	"errors"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// Slicing follows Python: x[:, 1:] and x[::-1] written as a Flip.
func ExampleSlice() {
	x, _ := tensor.FromFloat64([]float64{0, 1, 2, 3, 4, 5}, 2, 3)
	y, _ := index.Slice(x, index.All, index.Range{Start: 1, Stop: index.End})
	z, _ := index.Flip(x, 0)
	w, _ := index.Slice(x, index.All, index.Range{Stop: -1})
	fmt.Println(y)
	fmt.Println(z)
	fmt.Println(w)
	// Output:
	// float64[2 2] [[1 2] [4 5]]
	// float64[2 3] [[3 4 5] [0 1 2]]
	// float64[2 2] [[0 1] [3 4]]
}

// The pullback of a gather is a scatter-add: an element read three times gets three
// cotangents.
func ExampleGatherOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	v, _ := tensor.FromFloat64([]float64{10, 20, 30}, 3)
	x := tape.Leaf(v)
	y := tape.Apply(index.GatherOp(0, []int{2, 0, 2, -1}, 4), x)
	yv, _ := tape.Value(y)
	ones := tensor.Ones(tensor.Float64, 4)
	g, _ := tape.BackwardSeed(y, ones)
	gx, _ := g.Of(x)
	fmt.Println(yv)
	fmt.Println(gx)
	// Output:
	// float64[4] [30 10 30 30]
	// float64[3] [1 0 3]
}

// Concat's pullback hands each input its slice of the cotangent; a real input of a
// complex concatenation gets the real part.
func ExampleConcatOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	av, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	bv, _ := tensor.FromComplex128([]complex128{3i}, 1)
	a, b := tape.Leaf(av), tape.Leaf(bv)
	y := tape.Apply(index.ConcatOp(0), a, b)
	seed, _ := tensor.FromComplex128([]complex128{1 + 1i, 2 - 1i, 5 + 5i}, 3)
	g, _ := tape.BackwardSeed(y, seed)
	ga, _ := g.Of(a)
	gb, _ := g.Of(b)
	fmt.Println(ga)
	fmt.Println(gb)
	// Output:
	// float64[2] [1 2]
	// complex128[1] [(5+5i)]
}

// Where picks by a fixed mask that broadcasts over the rows.
func ExampleWhere() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	b := tensor.Full(tensor.Float64, -1, 2, 2)
	y, _ := index.Where([]bool{true, false}, []int{2}, a, b)
	fmt.Println(y)
	// Output:
	// float64[2 2] [[1 -1] [3 -1]]
}

// ApplyChunk records one split op with an output per piece; the pieces are views
// of x.
func ExampleApplyChunk() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	v, _ := tensor.FromFloat64([]float64{0, 1, 2, 3, 4}, 5)
	parts := index.ApplyChunk(tape, tape.Leaf(v), 0, 2)
	for _, p := range parts {
		pv, _ := tape.Value(p)
		fmt.Println(pv)
	}
	fmt.Println(tape.Err() == nil)
	// Output:
	// float64[3] [0 1 2]
	// float64[2] [3 4]
	// true
}

// Bad parameters are errors that name the op, the axis and the value; the tape
// keeps the first one.
func ExampleSelectOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.New(tensor.Float64, 2, 3))
	tape.Apply(index.SelectOp(1, 5), x)
	fmt.Println(errors.Is(tape.Err(), cr.ErrInvalidArgument))
	fmt.Println(tape.Err())
	// Output:
	// true
	// chainrules: select at node %1 (apply): invalid argument: select: index 5 out of range for axis 1 of size 3 (recorded at index/example_test.go:97)
}

// SplitOp is one op with an output per block. A loss that uses one block only pulls
// back into that block of the gradient: the other blocks' cotangents are absent and
// never materialised.
func ExampleSplitOp() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	v, _ := tensor.FromFloat64([]float64{0, 1, 2, 3, 4, 5}, 2, 3)
	x := tape.Leaf(v)
	blocks := tape.ApplyMulti(index.SplitOp(1, []int{1, 2}), x)
	right, _ := tape.Value(blocks[1])
	fmt.Println(right)
	seed, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	g, _ := tape.BackwardSeed(blocks[1], seed)
	gx, _ := g.Of(x)
	fmt.Println(gx)
	// Output:
	// float64[2 2] [[1 2] [4 5]]
	// float64[2 3] [[0 1 2] [0 3 4]]
}

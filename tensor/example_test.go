package tensor_test

import (
	"errors"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Broadcasting adds a row vector to every row of a matrix; SumTo is its adjoint and
// sums the rows back.
func Example() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b, _ := tensor.FromFloat64([]float64{10, 20, 30}, 3)
	c, _ := tensor.Add(a, b)
	s, _ := tensor.SumTo(c, []int{3})
	fmt.Println(c)
	fmt.Println(s)
	// Output:
	// float64[2 3] [[11 22 33] [14 25 36]]
	// float64[3] [25 47 69]
}

// Views share storage with their parent: a transpose is free, and writing through
// it changes the parent.
func ExampleDense_Transpose() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	at, _ := a.Transpose(0, 1)
	fmt.Println(at, at.IsContiguous())
	at.Set(-1, 2, 0)
	fmt.Println(a)
	// Output:
	// float64[3 2] [[1 4] [2 5] [3 6]] false
	// float64[2 3] [[1 2 -1] [4 5 6]]
}

// Reshape returns a view when the strides allow and a copy otherwise.
func ExampleDense_Reshape() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	r, _ := a.Reshape(3, -1)
	fmt.Println(r)
	at, _ := a.Transpose(0, 1)
	flat, _ := at.Reshape(6)
	fmt.Println(flat)
	// Output:
	// float64[3 2] [[1 2] [3 4] [5 6]]
	// float64[6] [1 4 2 5 3 6]
}

// Mixing float64 and complex128 operands promotes the result to complex128.
func ExampleMul() {
	x, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	z, _ := tensor.FromComplex128([]complex128{1i, 1 + 1i}, 2)
	p, _ := tensor.Mul(x, z)
	fmt.Println(p)
	// Output:
	// complex128[2] [(0+1i) (2+2i)]
}

func ExampleMatMul() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{5, 6, 7, 8}, 2, 2)
	bt, _ := b.Transpose(0, 1) // passed to BLAS as a transposed operand, no copy
	c, _ := tensor.MatMul(a, bt)
	fmt.Println(c)
	// Output:
	// float64[2 2] [[17 23] [39 53]]
}

func ExampleBatchMatMul() {
	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 1, 2) // two 1×2 rows
	b, _ := tensor.FromFloat64([]float64{1, 1, 2, 2}, 2, 1, 2) // two 1×2 rows, used transposed
	c, _ := tensor.BatchMatMul(a, b, false, true)
	fmt.Println(c)
	// Output:
	// float64[2 1 1] [[[3]] [[14]]]
}

// The Space's inner product is Re sum conj(a_i) b_i.
func ExampleSpace_Inner() {
	a, _ := tensor.FromComplex128([]complex128{1 + 2i}, 1)
	b, _ := tensor.FromComplex128([]complex128{3 - 1i}, 1)
	ip, _ := tensor.Space{}.Inner(a, b)
	fmt.Println(ip)
	// Output:
	// 1
}

// Errors wrap the chainrules sentinels.
func ExampleBroadcastShapes() {
	s, _ := tensor.BroadcastShapes([]int{2, 1, 4}, []int{3, 1})
	fmt.Println(s)
	_, err := tensor.BroadcastShapes([]int{2, 3}, []int{3, 2})
	fmt.Println(errors.Is(err, cr.ErrShapeMismatch), err)
	// Output:
	// [2 3 4]
	// true shape mismatch: shapes [[2 3] [3 2]] do not broadcast
}

// Elements and FromElements give element access in row-major order, real elements
// as complex(x, 0): what testing/ruletest.ElementSpace asks of a Space.
func ExampleSpace_Elements() {
	var sp tensor.Space
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	xt, _ := x.Transpose(0, 1)
	fmt.Println(sp.Elements(xt))
	y, _ := sp.FromElements(x, []complex128{5, 6i, 7, 8})
	fmt.Println(y)
	// Output:
	// [(1+0i) (3+0i) (2+0i) (4+0i)]
	// float64[2 2] [[5 0] [7 8]]
}

package tensor_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/mat"

	"github.com/chainrules-go/chainrules/tensor"
)

// BLAS's documentation: installed for both element types, tensor.BLAS serves every
// gonum package that calls the BLAS: here mat's product and a complex GEMM.
func ExampleBLAS_install() {
	saved64, saved128 := blas64.Implementation(), cblas128.Implementation()
	defer func() {
		blas64.Use(saved64)
		cblas128.Use(saved128)
	}()
	blas64.Use(tensor.BLAS{})
	cblas128.Use(tensor.BLAS{})

	a := mat.NewDense(1, 2, []float64{1, 2})
	b := mat.NewDense(2, 1, []float64{3, 4})
	var c mat.Dense
	c.Mul(a, b) // blas64.Gemm, that is tensor.BLAS{}.Dgemm
	z := cblas128.General{Rows: 1, Cols: 1, Stride: 1, Data: []complex128{0}}
	x := cblas128.General{Rows: 1, Cols: 2, Stride: 2, Data: []complex128{1i, 2}}
	y := cblas128.General{Rows: 2, Cols: 1, Stride: 1, Data: []complex128{1i, 3}}
	cblas128.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, z) // tensor.BLAS{}.Zgemm
	fmt.Println(c.At(0, 0), z.Data[0])
	// Output:
	// 11 (5+0i)
}

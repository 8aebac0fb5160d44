package tensor_test

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Gemm works on slices with BLAS's conventions: here C = 2 A op(B) + C with B
// stored transposed (transB) and C inside a wider buffer (ldc 3). A slice too short
// for its matrix is an error, not a panic.
func ExampleGemm() {
	a := []float64{1, 2, 3, 4}         // A = [1 2; 3 4]
	b := []float64{1, 0, 1, 1}         // stored [1 0; 1 1], so op(B) = [1 1; 0 1]
	c := []float64{1, 1, -1, 1, 1, -1} // C = [1 1; 1 1], third column untouched
	if err := tensor.Gemm(false, true, 2, 2, 2, 2.0, a, 2, b, 2, 1.0, c, 3); err != nil {
		fmt.Println(err)
	}
	fmt.Println(c)
	err := tensor.Gemm(false, false, 2, 2, 2, 1.0, a[:3], 2, b, 2, 0, c, 3)
	fmt.Println(errors.Is(err, cr.ErrInvalidArgument))
	// Output:
	// [3 7 -1 7 15 -1]
	// true
}

// GemmBatch multiplies a batch of matrices by one shared matrix (stride 0) in one
// call: C_p = A_p B for a [2 1 2] batch A and a 2×2 B.
func ExampleGemmBatch() {
	a := []complex128{1, 1i, 2, 0} // A_0 = [1 i], A_1 = [2 0]
	b := []complex128{1, 0, 0, 1i} // B = diag(1, i)
	c := make([]complex128, 4)
	if err := tensor.GemmBatch(false, false, 1, 2, 2, 1, a, 2, 2, b, 2, 0, 0, c, 2, 2, 2); err != nil {
		fmt.Println(err)
	}
	fmt.Println(c)
	// Output:
	// [(1+0i) (-1+0i) (2+0i) (0+0i)]
}

// Installed as gonum's BLAS, tensor.BLAS runs gonum's matrix products (and the
// blocked parts of its LAPACK) on the project's kernels.
func ExampleBLAS() {
	saved := blas64.Implementation()
	defer blas64.Use(saved)
	blas64.Use(tensor.BLAS{})

	a := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	b := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	var c mat.Dense
	c.Mul(a, b) // blas64.Gemm, that is tensor.BLAS{}.Dgemm
	fmt.Println(mat.Formatted(&c))
	// Output:
	// ⎡ 4   5⎤
	// ⎣10  11⎦
}

package linalg_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func mat(rows, cols int, v ...float64) *tensor.Dense {
	t, err := tensor.FromFloat64(v, rows, cols)
	if err != nil {
		panic(err)
	}
	return t
}

func ExampleCholesky() {
	a := mat(2, 2, 4, 2, 2, 5)
	l, err := linalg.Cholesky(a, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(l)
	_, err = linalg.Cholesky(mat(2, 2, 1, 2, 2, 1), false)
	fmt.Println(err)
	// Output:
	// float64[2 2] [[2 0] [1 2]]
	// invalid argument: cholesky: the matrix is not positive-definite (the leading minor of order 2 is not positive-definite)
}

// The gradient of a loss through a linear solve: the pullback solves with A^T.
func ExampleSolveOp() {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	a := t.Leaf(mat(2, 2, 2, 1, 1, 3))
	b := t.Leaf(mat(2, 1, 1, 2))
	x := t.Apply(linalg.SolveOp(), a, b)         // x = A^-1 b = (0.2, 0.6)
	loss := t.Apply(reduce.SumOp(nil, false), x) // sum(x)
	g, err := t.Backward(loss)
	if err != nil {
		panic(err)
	}
	xv, _ := t.Value(x)
	gb, _ := g.Of(b) // A^-T 1
	ga, _ := g.Of(a) // -A^-T 1 x^T
	fmt.Printf("x = %.1f\nbbar = %.1f\nAbar = %.2f\n", xv.Float64s(), gb.Float64s(), ga.Float64s())
	// Output:
	// x = [0.2 0.6]
	// bbar = [0.4 0.2]
	// Abar = [-0.08 -0.24 -0.04 -0.12]
}

func ExampleEigh() {
	w, v, err := linalg.Eigh(mat(2, 2, 2, 1, 1, 2))
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = %.4f\n|V| = %.4f\n", w.Float64s(), abs(v.Float64s()))
	// Output:
	// w = [1.0000 3.0000]
	// |V| = [0.7071 0.7071 0.7071 0.7071]
}

func abs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)
	}
	return out
}

// An exact Hessian-vector product through a Cholesky factorisation: the loss
// logdet(A) = 2 sum log diag(chol(A)) has the Hessian v -> -A^-1 v A^-1.
func ExampleCholeskyOp_hessianVectorProduct() {
	logdet := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		l := t.Apply(linalg.CholeskyOp(false), x[0])
		d := t.Apply(einsum.Op("ii->i"), l)
		return t.Apply(elementwise.ScaleOp(2), t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.LogOp, d)))
	}
	a := mat(2, 2, 2, 0, 0, 4)
	v := mat(2, 2, 1, 0, 0, 1)
	grad, hv, err := hvp.HVP(logdet, []*tensor.Dense{a}, []*tensor.Dense{v})
	if err != nil {
		panic(err)
	}
	fmt.Printf("grad = %.4f\nH v = %.4f\n", grad[0].Float64s(), hv[0].Float64s())
	// Output:
	// grad = [0.5000 0.0000 0.0000 0.2500]
	// H v = [-0.2500 0.0000 0.0000 -0.0625]
}

func ExampleSVD() {
	u, s, vh, err := linalg.SVD(mat(2, 3, 3, 0, 0, 0, 0, 2))
	if err != nil {
		panic(err)
	}
	fmt.Printf("S = %.1f, U %v, Vh %v\n", s.Float64s(), u.Shape(), vh.Shape())
	// Output:
	// S = [3.0 2.0], U [2 2], Vh [2 3]
}

func ExampleLUFactor() {
	lu, piv, err := linalg.LUFactor(mat(2, 2, 1, 2, 3, 4))
	if err != nil {
		panic(err)
	}
	fmt.Printf("LU = %.4f\npivots = %v\n", lu.Float64s(), piv.Float64s())
	x, err := linalg.LUSolve(lu, piv, mat(2, 1, 5, 6), true, false)
	if err != nil {
		panic(err)
	}
	fmt.Printf("x = %.1f\n", x.Float64s())
	// Output:
	// LU = [3.0000 4.0000 0.3333 0.6667]
	// pivots = [2 2]
	// x = [-4.0 4.5]
}

func ExampleDet() {
	d, err := linalg.Det(mat(2, 2, 1, 2, 3, 4))
	if err != nil {
		panic(err)
	}
	sign, logabs, err := linalg.Slogdet(mat(2, 2, 1, 2, 3, 4))
	if err != nil {
		panic(err)
	}
	fmt.Printf("det = %.4f, sign = %v, log|det| = %.4f\n", d.Float64s()[0], sign.Float64s()[0], logabs.Float64s()[0])
	// Output:
	// det = -2.0000, sign = -1, log|det| = 0.6931
}

func ExampleVectorNorm() {
	x, _ := tensor.FromFloat64([]float64{3, -4, 0}, 3)
	for _, ord := range []float64{2, 1, 0, math.Inf(1)} {
		n, err := linalg.VectorNorm(x, ord, nil, false)
		if err != nil {
			panic(err)
		}
		fmt.Printf("ord %v: %v\n", ord, n.Float64s()[0])
	}
	// Output:
	// ord 2: 5
	// ord 1: 7
	// ord 0: 2
	// ord +Inf: 4
}

func ExampleMatrixExp() {
	// exp of a rotation generator is a rotation.
	e, err := linalg.MatrixExp(mat(2, 2, 0, -math.Pi/2, math.Pi/2, 0))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", e.Float64s())
	// Output:
	// [0.0000 -1.0000 1.0000 0.0000]
}

// The backend switches: gonum's LAPACK on the project's GEMM for the routines that
// go through lapack64 (eigh, svd, qr), and UseLAPACK64 to send Cholesky, LU and
// triangular solves to lapack64 too. Both are process-wide; results agree up to
// rounding.
func ExampleUseLAPACK64() {
	prev := blas64.Implementation()
	blas64.Use(tensor.BLAS{})
	defer blas64.Use(prev)
	linalg.UseLAPACK64(true)
	defer linalg.UseLAPACK64(false)
	l, err := linalg.Cholesky(mat(2, 2, 4, 2, 2, 5), false)
	if err != nil {
		panic(err)
	}
	fmt.Println(l)
	// Output:
	// float64[2 2] [[2 0] [1 2]]
}

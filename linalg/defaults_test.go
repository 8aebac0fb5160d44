package linalg_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// The default and option forms compute what the positional forms compute.
func TestDefaultForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := tensor.RandN(rng, tensor.Float64, 2, 3, 4)
	same := func(name string, got, want *tensor.Dense, err1, err2 error) {
		t.Helper()
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		g, w := got.Contiguous().Float64s(), want.Contiguous().Float64s()
		if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) || fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	a, err1 := linalg.MatrixNormFro(x)
	b, err2 := linalg.MatrixNorm(x, linalg.OrdFro, -2, -1, false)
	same("matrix_norm", a, b, err1, err2)
	// The Frobenius norm written out.
	for k := range 2 {
		s := 0.0
		for _, v := range x.Float64s()[k*12 : (k+1)*12] {
			s += v * v
		}
		if got := a.Float64s()[k]; math.Abs(got-math.Sqrt(s)) > 1e-14 {
			t.Errorf("matrix %d: fro %v, want %v", k, got, math.Sqrt(s))
		}
	}

	a, err1 = linalg.PinvDefault(x)
	b, err2 = linalg.Pinv(x, linalg.PinvOptions{})
	same("pinv", a, b, err1, err2)

	tri := tensor.RandN(rng, tensor.Float64, 3, 3)
	rhs := tensor.RandN(rng, tensor.Float64, 3, 2)
	rhsT := tensor.RandN(rng, tensor.Float64, 2, 3)
	for _, c := range []struct {
		name              string
		opts              []linalg.TriangularOption
		upper, left, unit bool
		b                 *tensor.Dense
	}{
		{"defaults", nil, false, true, false, rhs},
		{"upper", []linalg.TriangularOption{linalg.Upper()}, true, true, false, rhs},
		{"upper right unit", []linalg.TriangularOption{linalg.Upper(), linalg.Right(), linalg.UnitTriangular()}, true, false, true, rhsT},
		{"later overrides", []linalg.TriangularOption{linalg.Upper(), linalg.Lower(), linalg.Right(), linalg.Left()}, false, true, false, rhs},
	} {
		a, err1 := linalg.SolveTriangularOpts(tri, c.b, c.opts...)
		b, err2 := linalg.SolveTriangular(tri, c.b, c.upper, c.left, c.unit)
		same("solve_triangular "+c.name, a, b, err1, err2)
	}
}

// torch.linalg.solve_triangular(A, B, upper=True) with options in place of bools.
func ExampleSolveTriangularOptsOp() {
	a, _ := tensor.FromFloat64([]float64{2, 1, 0, 4}, 2, 2) // upper triangular
	b, _ := tensor.FromFloat64([]float64{4, 8}, 2, 1)
	x, err := linalg.SolveTriangularOpts(a, b, linalg.Upper())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x)

	// X T = B with the upper triangle of A and a unit diagonal: x T = [1 2] for x = [1 1].
	op := linalg.SolveTriangularOptsOp(linalg.Upper(), linalg.Right(), linalg.UnitTriangular())
	row, _ := tensor.FromFloat64([]float64{1, 2}, 1, 2)
	xr, _ := cr.Eval(op, a, row)
	fmt.Println(xr)
	// Output:
	// float64[2 1] [[1] [2]]
	// float64[1 2] [[1 1]]
}

// torch.linalg.matrix_norm(A) and torch.linalg.pinv(A) with their defaults.
func ExampleMatrixNormFroOp() {
	a, _ := tensor.FromFloat64([]float64{3, 0, 0, 4}, 2, 2)
	n, _ := linalg.MatrixNormFro(a)
	p, _ := linalg.PinvDefault(a)
	fmt.Println(n)
	fmt.Printf("%.4f\n", p.Float64s())
	// Output:
	// float64[] 5
	// [0.3333 0.0000 0.0000 0.2500]
}

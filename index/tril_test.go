package index_test

import (
	"errors"
	"fmt"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestTrilTriu(t *testing.T) {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
	cases := []struct {
		name string
		f    func(*tensor.Dense, int) (*tensor.Dense, error)
		k    int
		want []float64
	}{
		{"tril 0", index.Tril, 0, []float64{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}},
		{"tril 1", index.Tril, 1, []float64{1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}},
		{"tril -1", index.Tril, -1, []float64{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}},
		{"triu 0", index.Triu, 0, []float64{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}},
		{"triu 2", index.Triu, 2, []float64{0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}},
		{"triu -1", index.Triu, -1, []float64{1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}},
		{"tril far below", index.Tril, -9, make([]float64, 12)},
		{"triu far below", index.Triu, -9, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	}
	for _, c := range cases {
		y, err := c.f(x, c.k)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := y.Float64s(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Batched and complex, on a strided view; x is not modified.
	z, _ := tensor.FromSlice([]complex128{1 + 1i, 2, 3, 4i, 5, 6, 7, 8, 9i}, 1, 3, 3)
	zt, _ := z.Transpose(1, 2)
	y, err := index.Triu(zt, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []complex128{1 + 1i, 4i, 7, 0, 5, 8, 0, 0, 9i}
	if got := y.Complex128s(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("triu of a transposed complex batch: %v, want %v", got, want)
	}
	if z.Complex128s()[1] != 2 {
		t.Error("triu modified its input")
	}
}

func TestTrilErrors(t *testing.T) {
	v, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	for _, op := range []cr.Op[*tensor.Dense]{index.TrilOp(0), index.TriuOp(1)} {
		_, err := cr.Eval(op, v)
		if !errors.Is(err, cr.ErrInvalidArgument) {
			t.Errorf("%s of a vector: %v, want ErrInvalidArgument", op.Name(), err)
		}
		if _, err := cr.Eval(op, tensor.Scalar(1)); !errors.Is(err, cr.ErrInvalidArgument) {
			t.Errorf("%s of a scalar: %v", op.Name(), err)
		}
	}
}

// The lower triangle of a matrix, and of the diagonals up to one above the main one.
func ExampleTril() {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3)
	lower, _ := index.Tril(x, 0)
	band, _ := index.Tril(x, 1)
	fmt.Println(lower)
	fmt.Println(band)
	// Output:
	// float64[3 3] [[1 0 0] [4 5 0] [7 8 9]]
	// float64[3 3] [[1 2 0] [4 5 6] [7 8 9]]
}

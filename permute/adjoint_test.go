package permute_test

import (
	"errors"
	"fmt"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestAdjoint(t *testing.T) {
	z, _ := tensor.FromSlice([]complex128{1 + 2i, 3, 4i, 5 - 1i, 6, 7 + 7i}, 1, 2, 3)
	y, err := permute.Adjoint(z)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(y.Shape()) != "[1 3 2]" {
		t.Fatalf("shape %v", y.Shape())
	}
	want := []complex128{1 - 2i, 5 + 1i, 3, 6, -4i, 7 - 7i}
	got := y.Complex128s()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("adjoint = %v, want %v", got, want)
			break
		}
	}
	if z.Complex128s()[0] != 1+2i {
		t.Error("adjoint modified its input")
	}
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	xt, err := permute.Adjoint(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := xt.Contiguous().Float64s(); fmt.Sprint(got) != "[1 4 2 5 3 6]" {
		t.Errorf("adjoint of a real matrix = %v, want its transpose", got)
	}
	for _, bad := range []*tensor.Dense{tensor.Scalar(1), x.Contiguous()} {
		if bad.Rank() == 2 {
			bad, _ = bad.Reshape(6)
		}
		if _, err := permute.Adjoint(bad); !errors.Is(err, cr.ErrInvalidArgument) {
			t.Errorf("adjoint of rank %d: %v, want ErrInvalidArgument", bad.Rank(), err)
		}
	}
}

// The conjugate transpose of a complex matrix (torch.adjoint, x.mH).
func ExampleAdjoint() {
	a, _ := tensor.FromSlice([]complex128{1 + 1i, 2, 3i, 4}, 2, 2)
	ah, _ := permute.Adjoint(a)
	fmt.Println(ah)
	// Output:
	// complex128[2 2] [[(1-1i) (0-3i)] [(2-0i) (4-0i)]]
}

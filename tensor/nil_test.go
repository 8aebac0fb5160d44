package tensor_test

import (
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
)

// TestNilDenseDescribes checks that the methods a user calls first on a value read
// from a tape accept a nil *Dense (the value returned with an error) instead of
// panicking before the error is seen.
func TestNilDenseDescribes(t *testing.T) {
	var d *tensor.Dense
	if got := d.Shape(); got != nil {
		t.Errorf("Shape() = %v, want nil", got)
	}
	if got := d.Size(); got != 0 {
		t.Errorf("Size() = %d, want 0", got)
	}
	if got := d.Rank(); got != 0 {
		t.Errorf("Rank() = %d, want 0", got)
	}
	if got := d.DType(); got == tensor.Float64 || got == tensor.Complex128 {
		t.Errorf("DType() = %v, want the zero DType", got)
	}
	if got := d.String(); got != "<nil>" {
		t.Errorf("String() = %q, want <nil>", got)
	}
	if got := d.Describe(); got != "<nil>" {
		t.Errorf("Describe() = %q, want <nil>", got)
	}
	// A scalar still has size 1 and rank 0: nil is not a scalar.
	s := tensor.Scalar(2.0)
	if s.Size() != 1 || s.Rank() != 0 || s.Describe() != "float64[]" {
		t.Errorf("scalar: Size %d, Rank %d, Describe %q", s.Size(), s.Rank(), s.Describe())
	}
}

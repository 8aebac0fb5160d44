package core_test

import (
	"errors"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestValueAfterStickyError checks that reading the value of a node recorded after
// an error returns the tape's error (not only "missing node"), with a nil value whose
// description does not panic.
func TestValueAfterStickyError(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(tensor.Scalar(1))
	boom := cr.Errorf(cr.ErrShapeMismatch, "boom: 2x3 against 4")
	y := tp.Apply(cr.FailOp[*tensor.Dense]("boom", boom), x)
	z := tp.Apply(cr.FailOp[*tensor.Dense]("later", errors.New("never reached")), y)
	v, err := tp.Value(z)
	if err == nil {
		t.Fatal("Value after a recording error: no error")
	}
	if !errors.Is(err, cr.ErrShapeMismatch) || !errors.Is(err, cr.ErrMissingNode) {
		t.Errorf("Value's error %q wraps neither the tape's error nor ErrMissingNode", err)
	}
	if !errors.Is(tp.Err(), cr.ErrShapeMismatch) {
		t.Errorf("Err() = %v", tp.Err())
	}
	if v != nil || v.Shape() != nil || v.Size() != 0 || v.String() != "<nil>" {
		t.Errorf("value after the error: %v (shape %v)", v, v.Shape())
	}
	// Without an error on the tape, the zero NodeID is only a missing node.
	fresh := core.NewTape[*tensor.Dense](tensor.Space{})
	if _, err := fresh.Value(cr.NodeID(0)); !errors.Is(err, cr.ErrMissingNode) || errors.Is(err, cr.ErrShapeMismatch) {
		t.Errorf("Value(zero) on a clean tape: %v", err)
	}
}

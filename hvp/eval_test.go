package hvp_test

import (
	"errors"
	"math"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestEval(t *testing.T) {
	var enabled []bool
	var requires []bool
	f := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		enabled = append(enabled, tp.GradEnabled())
		y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, x[0]))
		requires = append(requires, tp.RequiresGrad(y))
		return y
	}
	x, _ := tensor.FromFloat64([]float64{0.5, 1, 2}, 3)
	got, err := hvp.Eval(f, []*tensor.Dense{x})
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sin(0.5) + math.Sin(1) + math.Sin(2)
	if v := got.Float64s()[0]; math.Abs(v-want) > 1e-15 {
		t.Errorf("Eval = %v, want %v", v, want)
	}
	value, _, err := hvp.Grad(f, []*tensor.Dense{x})
	if err != nil {
		t.Fatal(err)
	}
	if value.Float64s()[0] != got.Float64s()[0] {
		t.Errorf("Eval %v and Grad's value %v differ", got, value)
	}
	if len(enabled) != 2 || enabled[0] || !enabled[1] || requires[0] || !requires[1] {
		t.Errorf("grad enabled (Eval, Grad) = %v, output requires grad = %v; want [false true] twice", enabled, requires)
	}

	// A non-scalar output is fine.
	id := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID { return tp.Apply(ew.ExpOp, x[0]) }
	y, err := hvp.Eval(id, []*tensor.Dense{x})
	if err != nil || len(y.Shape()) != 1 || y.Shape()[0] != 3 {
		t.Errorf("Eval of exp: %v, %v", y, err)
	}

	// Errors: a nil input and an op that fails.
	if _, err := hvp.Eval(f, []*tensor.Dense{nil}); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Errorf("nil input: %v", err)
	}
	bad := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return tp.Apply(ew.AddOp, x[0], x[1])
	}
	short, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	if _, err := hvp.Eval(bad, []*tensor.Dense{x, short}); !errors.Is(err, cr.ErrShapeMismatch) {
		t.Errorf("shape mismatch: %v", err)
	}

	// Inside another transform's recording, Eval gives a constant.
	var inner *tensor.Dense
	var innerErr error
	outer := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		inner, innerErr = hvp.Eval(f, []*tensor.Dense{x0(tp, x)})
		return tp.Apply(reduce.SumOp(nil, false), x[0])
	}
	if _, _, err := hvp.Grad(outer, []*tensor.Dense{x}); err != nil {
		t.Fatal(err)
	}
	if innerErr != nil || inner.Float64s()[0] != got.Float64s()[0] {
		t.Errorf("Eval inside Grad: %v, %v", inner, innerErr)
	}
}

// x0 returns the value of the first input of a recording.
func x0(tp *hvp.Tape, x []cr.NodeID) *tensor.Dense {
	v, _ := tp.Value(x[0])
	return v
}

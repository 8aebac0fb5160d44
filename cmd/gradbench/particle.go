package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The particle eval (Siskind and Pearlmutter's nested-AD benchmark): a particle
// starts at (0, 8) with velocity (0.75, 0) in the potential
//
//	p(x; w) = 1/|x - (10, 10 - w)| + 1/|x - (10, 0)|,
//
// accelerated by -grad_x p; naive Euler steps (dt = 0.1) run until it would
// cross the x axis, where the line through the last point along the velocity
// meets it at x_f. The answer is the w found by GradBench's gradient descent
// on x_f(w)_0² from the given w. The four functions differ in the modes of the
// two derivatives: the first letter for the descent's d/dw, the second for
// the force grad_x p inside each step, which is recorded (hvp.GradOf or
// hvp.JVPOf) so that d/dw goes through it.
func init() {
	fns := map[string]prepare{}
	for _, name := range []string{"rr", "ff", "fr", "rf"} {
		fns[name] = particleJob(gradMode(name[0]), gradMode(name[1]))
	}
	modules["particle"] = fns
}

type particleInput struct {
	runs
	W *float64 `json:"w"`
}

// maxEulerSteps bounds the trajectory: a w whose particle never comes down is
// an error.
const maxEulerSteps = 1 << 16

// naiveEuler returns x_f(w)_0² as a function of w (a vector of one element),
// the force taken in the given mode.
func naiveEuler(inner gradMode) hvp.Func {
	base := vectorShape([]float64{10, 10, 10, 0}, 2, 2)
	dir := vectorShape([]float64{0, 1, 0, 0}, 2, 2)
	const dt = 0.1
	return func(t *hvp.Tape, in []cr.NodeID) cr.NodeID {
		ap := func(op cr.Op[*tensor.Dense], x ...cr.NodeID) cr.NodeID { return t.Apply(op, x...) }
		// The charges (10, 10 - w) and (10, 0), the rows of a 2 x 2 matrix.
		charges := ap(elementwise.SubOp, t.Constant(base), ap(elementwise.MulOp, in[0], t.Constant(dir)))
		potential := func(t *hvp.Tape, x cr.NodeID) cr.NodeID {
			d := ap(elementwise.SubOp, x, charges)
			dist := ap(elementwise.SqrtOp, ap(reduce.SumOp([]int{1}, false), ap(elementwise.SquareOp, d)))
			return ap(reduce.SumOp(nil, false), ap(elementwise.ReciprocalOp, dist))
		}
		// The start is a leaf, not a constant: GradOf and JVPOf differentiate
		// only with respect to nodes that a leaf influences (the first step's
		// force is taken at the start itself). No derivative is asked of it.
		x := t.Leaf(vector([]float64{0, 8}))
		xdot := t.Constant(vector([]float64{0.75, 0}))
		for range maxEulerSteps {
			if t.Err() != nil {
				return x
			}
			xddot := ap(elementwise.NegOp, recGrad(inner, potential, t, x, 2))
			xnew := ap(elementwise.AddOp, x, ap(elementwise.ScaleOp(dt), xdot))
			if v, err := t.Value(xnew); err == nil && v.Float64s()[1] <= 0 {
				y := func(v cr.NodeID) cr.NodeID { return ap(index.SelectOp(0, 1), v) }
				dtf := ap(elementwise.NegOp, ap(elementwise.DivOp, y(xnew), y(xdot)))
				xf := ap(elementwise.AddOp, xnew, ap(elementwise.MulOp, dtf, xdot))
				x0 := ap(permute.ReshapeOp(1), ap(index.NarrowOp(0, 0, 1), xf))
				return ap(reduce.SumOp(nil, false), ap(elementwise.SquareOp, x0))
			}
			xdot = ap(elementwise.AddOp, xdot, ap(elementwise.ScaleOp(dt), xddot))
			x = xnew
		}
		return ap(cr.FailOp[*tensor.Dense]("naive_euler", fmt.Errorf("the particle did not reach the x axis in %d steps", maxEulerSteps)))
	}
}

func particleJob(outer, inner gradMode) prepare {
	return func(input json.RawMessage) (job, error) {
		var in particleInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if in.W == nil {
			return job{}, fmt.Errorf("no w")
		}
		f := naiveEuler(inner)
		w0 := []float64{*in.W}
		return job{runs: in.runs, run: func() (any, error) {
			w, err := argmin(outer, f, w0)
			if err != nil {
				return nil, err
			}
			return w[0], nil
		}}, nil
	}
}

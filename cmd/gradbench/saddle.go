package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
)

// The saddle eval (Siskind and Pearlmutter's nested-AD benchmark): with
//
//	f(p1, p2) = |p1|² - |p2|²,
//
// r1 = argmin over p1 of max over p2 of f(p1, p2), both found by GradBench's
// gradient descent from the start point, and r2 = argmax over p2 of f(r1, p2);
// the output is (r1, r2). The inner maximisation is recorded (its gradient by
// hvp.GradOf or hvp.JVPOf, its decisions on the recorded values), so that the
// outer descent's gradient goes through it. The first letter of the function
// names the outer mode, the second the inner one.
func init() {
	fns := map[string]prepare{}
	for _, name := range []string{"rr", "ff", "fr", "rf"} {
		fns[name] = saddleJob(gradMode(name[0]), gradMode(name[1]))
	}
	modules["saddle"] = fns
}

type saddleInput struct {
	runs
	Start []float64 `json:"start"`
}

// saddleCost records f(p1, p2).
func saddleCost(t *hvp.Tape, p1, p2 cr.NodeID) cr.NodeID {
	sq := func(p cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SquareOp, p))
	}
	return t.Apply(elementwise.SubOp, sq(p1), sq(p2))
}

// innerMax returns max over p2 of f(p1, p2), found from start, as a function
// of p1, the inner gradient taken in the given mode.
func innerMax(inner gradMode, start []float64) hvp.Func {
	return func(t *hvp.Tape, p1 []cr.NodeID) cr.NodeID {
		negCost := func(t *hvp.Tape, p2 cr.NodeID) cr.NodeID {
			return t.Apply(elementwise.NegOp, saddleCost(t, p1[0], p2))
		}
		// The start is a leaf: GradOf and JVPOf differentiate only with
		// respect to nodes that a leaf influences.
		p2 := recArgmin(inner, negCost, t, t.Leaf(vector(start)), len(start))
		return saddleCost(t, p1[0], p2)
	}
}

func saddleJob(outer, inner gradMode) prepare {
	return func(input json.RawMessage) (job, error) {
		var in saddleInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if len(in.Start) != 2 {
			return job{}, fmt.Errorf("start has %d elements, want 2", len(in.Start))
		}
		start := in.Start
		r1Cost := innerMax(inner, start)
		return job{runs: in.runs, run: func() (any, error) {
			r1, err := argmin(outer, r1Cost, start)
			if err != nil {
				return nil, err
			}
			// r2 maximises f(r1, .): the descent on -f, in the outer mode.
			r1v := vector(r1)
			negCost := func(t *hvp.Tape, p2 []cr.NodeID) cr.NodeID {
				return t.Apply(elementwise.NegOp, saddleCost(t, t.Constant(r1v), p2[0]))
			}
			r2, err := argmin(outer, negCost, start)
			if err != nil {
				return nil, err
			}
			return append(r1, r2...), nil
		}}, nil
	}
}

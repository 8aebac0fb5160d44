package main

import (
	"encoding/json"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// The ode eval (cmpad's an_ode): y(0) = 0 and
//
//	y_0' = x_0,   y_i' = x_i y_{i-1}  (i > 0),
//
// integrated to t = 2 by s steps of the classical fourth-order Runge-Kutta
// method. primal returns y(2); gradient returns the gradient of its last
// element with respect to x, taken by hvp.Grad through the s steps.
func init() {
	modules["ode"] = map[string]prepare{
		"primal":   odeJob(false),
		"gradient": odeJob(true),
	}
}

type odeInput struct {
	runs
	X []float64 `json:"x"`
	S int       `json:"s"`
}

// maxSteps bounds s: each step records about twenty ops.
const maxSteps = 1 << 20

// odeSolve returns y(2) as a function of x (n elements) after s steps.
func odeSolve(n, s int) hvp.Func {
	first := make([]float64, n)
	first[0] = 1
	e0 := vector(first)
	h := 2 / float64(s)
	return func(t *hvp.Tape, in []cr.NodeID) cr.NodeID {
		x := in[0]
		e := t.Constant(e0)
		// rhs(y) = x * (1, y_0, ..., y_{n-2}).
		rhs := func(y cr.NodeID) cr.NodeID {
			shifted := t.Apply(index.PadOp([2]int{1, 0}), t.Apply(index.NarrowOp(0, 0, n-1), y))
			return t.Apply(elementwise.MulOp, x, t.Apply(elementwise.AddOp, shifted, e))
		}
		step := func(y, k cr.NodeID, c float64) cr.NodeID {
			return t.Apply(elementwise.AddOp, y, t.Apply(elementwise.ScaleOp(c), k))
		}
		y := t.Constant(tensor.New(tensor.Float64, n))
		for range s {
			k1 := rhs(y)
			k2 := rhs(step(y, k1, h/2))
			k3 := rhs(step(y, k2, h/2))
			k4 := rhs(step(y, k3, h))
			sum := t.Apply(elementwise.AddOp, k1, k4)
			sum = t.Apply(elementwise.AddOp, sum, t.Apply(elementwise.ScaleOp(2), t.Apply(elementwise.AddOp, k2, k3)))
			y = step(y, sum, h/6)
		}
		return y
	}
}

func odeJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in odeInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		n := len(in.X)
		if n == 0 {
			return job{}, fmt.Errorf("x is empty")
		}
		if in.S < 1 || in.S > maxSteps {
			return job{}, fmt.Errorf("s = %d, want 1 to %d steps", in.S, maxSteps)
		}
		solve := odeSolve(n, in.S)
		last := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
			return t.Apply(index.SelectOp(0, n-1), solve(t, x))
		}
		x := []*tensor.Dense{vector(in.X)}
		return job{runs: in.runs, run: func() (any, error) {
			if !grad {
				y, err := primal(solve, x)
				if err != nil {
					return nil, err
				}
				return flat(y), nil
			}
			_, g, err := hvp.Grad(last, x)
			if err != nil {
				return nil, err
			}
			return flat(g[0]), nil
		}}, nil
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The llsq eval (cmpad's llsq_obj): with n sample points t_i = -1 + 2i/(n-1)
// and the m coefficients x,
//
//	f(x) = 1/2 sum_i (sign(t_i) - sum_j x_j t_i^j)²,
//
// written as the residual sign(t) - V x of the Vandermonde matrix V = vander(t, m).
func init() {
	modules["llsq"] = map[string]prepare{
		"primal":   llsqJob(false),
		"gradient": llsqJob(true),
	}
}

type llsqInput struct {
	runs
	X []float64 `json:"x"`
	N int       `json:"n"`
}

// llsqObjective returns the objective for n sample points and m coefficients
// (the vector x[0]).
func llsqObjective(n, m int) hvp.Func {
	ts := make([]float64, n)
	for i := range ts {
		ts[i] = -1 + float64(i)*2/float64(n-1)
	}
	tv := vector(ts)
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		ti := t.Constant(tv)
		v := t.Apply(linalg.VanderOp(m), ti)
		r := t.Apply(elementwise.SubOp, t.Apply(elementwise.SignOp, ti), t.Apply(nn.MatmulOp, v, x[0]))
		sq := t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SquareOp, r))
		return t.Apply(elementwise.ScaleOp(0.5), sq)
	}
}

func llsqJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in llsqInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if len(in.X) == 0 {
			return job{}, fmt.Errorf("x is empty")
		}
		if in.N < 2 || in.N > math.MaxInt32 {
			return job{}, fmt.Errorf("n = %d, want at least 2 sample points", in.N)
		}
		f := llsqObjective(in.N, len(in.X))
		x := []*tensor.Dense{vector(in.X)}
		return scalarJob(in.runs, f, x, grad, firstFlat), nil
	}
}

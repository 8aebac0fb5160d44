package main

import (
	"encoding/json"
	"errors"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The lse eval: LSE(x) = a + log sum_i exp(x_i - a) with a = max x, written
// from its parts (a maximum, a sum) rather than with reduce.LogSumExpOp; its
// gradient is the engine's.
func init() {
	modules["lse"] = map[string]prepare{
		"primal":   lseJob(false),
		"gradient": lseJob(true),
	}
}

type lseInput struct {
	runs
	X []float64 `json:"x"`
}

func logSumExp(t *hvp.Tape, in []cr.NodeID) cr.NodeID {
	x := in[0]
	a := t.Apply(reduce.MaxOp(nil, false), x)
	e := t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x, a))
	s := t.Apply(elementwise.LogOp, t.Apply(reduce.SumOp(nil, false), e))
	return t.Apply(elementwise.AddOp, a, s)
}

func lseJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in lseInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if len(in.X) == 0 {
			return job{}, errors.New("x is empty")
		}
		x := []*tensor.Dense{vector(in.X)}
		return scalarJob(in.runs, logSumExp, x, grad, firstFlat), nil
	}
}

package main

import (
	"encoding/json"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// The hello eval: square(x) = x² and double(x) = d square / dx = 2x, on a bare
// number (no repetition fields).
func init() {
	modules["hello"] = map[string]prepare{
		"square": helloJob(false),
		"double": helloJob(true),
	}
}

func square(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	return t.Apply(elementwise.MulOp, x[0], x[0])
}

func helloJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var x float64
		if err := decode(input, &x); err != nil {
			return job{}, err
		}
		in := []*tensor.Dense{tensor.Scalar(x)}
		return scalarJob(runs{}, square, in, grad, func(g []*tensor.Dense) (any, error) {
			return scalarOf(g[0])
		}), nil
	}
}

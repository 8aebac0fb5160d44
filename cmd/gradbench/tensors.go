package main

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// primal evaluates f at x on a tape that records values only (no rules, no
// residuals kept): the plain function evaluation of an eval.
func primal(f hvp.Func, x []*tensor.Dense) (*tensor.Dense, error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	t.SetGradEnabled(false)
	ids := make([]cr.NodeID, len(x))
	for i, v := range x {
		ids[i] = t.Constant(v)
	}
	out := f(t, ids)
	if err := t.Err(); err != nil {
		return nil, err
	}
	return t.Value(out)
}

// scalarJob is the job of an eval whose function is the scalar f at x: the value
// f(x) (evaluated by primal) or, if grad, the gradient of f at x, which out turns
// into the response.
func scalarJob(r runs, f hvp.Func, x []*tensor.Dense, grad bool, out func(g []*tensor.Dense) (any, error)) job {
	return job{runs: r, run: func() (any, error) {
		if !grad {
			y, err := primal(f, x)
			if err != nil {
				return nil, err
			}
			return scalarOf(y)
		}
		_, g, err := hvp.Grad(f, x)
		if err != nil {
			return nil, err
		}
		return out(g)
	}}
}

// firstFlat is the response of a gradient with respect to one input: its
// elements, flattened.
func firstFlat(g []*tensor.Dense) (any, error) { return flat(g[0]), nil }

// vector copies data into a 1-d tensor.
func vector(data []float64) *tensor.Dense {
	v, _ := tensor.FromFloat64(append([]float64(nil), data...), len(data))
	return v
}

// scalarOf returns the single element of a 0-d or one-element tensor.
func scalarOf(v *tensor.Dense) (float64, error) {
	if v.Size() != 1 {
		return 0, fmt.Errorf("result has shape %v, want a scalar", v.Shape())
	}
	return v.Float64s()[0], nil
}

// flat returns the elements of v in row-major order, for the response: they
// alias v's storage when v is contiguous (a result the engine handed over,
// which nothing else writes), so that the timed evaluation does not copy a
// gradient of millions of elements that the other tools hand over as is.
func flat(v *tensor.Dense) []float64 {
	return v.Float64s()
}

// matrix copies rows into a len(rows) x cols tensor; every row must have cols
// elements.
func matrix(name string, rows [][]float64, cols int) (*tensor.Dense, error) {
	data := make([]float64, 0, len(rows)*cols)
	for i, r := range rows {
		if len(r) != cols {
			return nil, fmt.Errorf("%s[%d] has %d elements, want %d", name, i, len(r), cols)
		}
		data = append(data, r...)
	}
	return tensor.FromFloat64(data, len(rows), cols)
}

// rows returns a 2-d tensor as a slice of rows (JSON's double[][]).
func rows(v *tensor.Dense) [][]float64 {
	sh := v.Shape()
	data := flat(v)
	if data == nil {
		data = []float64{} // rows of no elements are [] in JSON, not null
	}
	out := make([][]float64, sh[0])
	for i := range out {
		out[i] = data[i*sh[1] : (i+1)*sh[1] : (i+1)*sh[1]]
	}
	return out
}

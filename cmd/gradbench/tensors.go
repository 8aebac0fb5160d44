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

// flat returns the elements of v in row-major order, as a fresh slice.
func flat(v *tensor.Dense) []float64 {
	return append([]float64(nil), v.Float64s()...)
}

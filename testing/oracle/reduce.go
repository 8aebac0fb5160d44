package oracle

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// InferReduction recovers the axes and keepdim flag of a reduction from its input
// and output shapes, for case files that record no parameters:
//
//   - equal ranks: keepdim is true and the reduced axes are those where the output
//     has size 1 and the input does not (axes of input size 1 are left out: summing
//     over them changes nothing);
//   - a smaller output rank: keepdim is false and the axes are those to delete from
//     the input shape to obtain the output shape.
//
// ok is false when no reduction maps inShape to outShape, or when several do with
// different results (in [2 2] to out [2], axis 0 and axis 1 both fit). Choices
// that differ only in deleted axes of size 1 are equivalent; the first is returned.
func InferReduction(inShape, outShape []int) (axes []int, keepdim bool, ok bool) {
	if len(inShape) == len(outShape) {
		axes = []int{}
		for k := range inShape {
			switch {
			case inShape[k] == outShape[k]:
			case outShape[k] == 1:
				axes = append(axes, k)
			default:
				return nil, false, false
			}
		}
		return axes, true, true
	}
	if len(outShape) > len(inShape) {
		return nil, false, false
	}
	var solutions [][]int
	var rec func(i, j int, removed []int)
	rec = func(i, j int, removed []int) {
		if len(solutions) > 64 {
			return
		}
		if i == len(inShape) {
			if j == len(outShape) {
				solutions = append(solutions, slices.Clone(removed))
			}
			return
		}
		if j < len(outShape) && inShape[i] == outShape[j] {
			rec(i+1, j+1, removed)
		}
		if len(inShape)-i > len(outShape)-j {
			rec(i+1, j, append(removed, i))
		}
	}
	rec(0, 0, nil)
	if len(solutions) == 0 {
		return nil, false, false
	}
	significant := func(removed []int) []int {
		var s []int
		for _, k := range removed {
			if inShape[k] != 1 {
				s = append(s, k)
			}
		}
		return s
	}
	first := significant(solutions[0])
	for _, s := range solutions[1:] {
		if !slices.Equal(significant(s), first) {
			return nil, false, false
		}
	}
	return solutions[0], false, true
}

// ReductionAxes returns the reduced axes (non-negative, sorted) and keepdim of a
// reduction case. It reads op_kwargs {"dim": int or list, "keepdim": bool} when the
// case has them (an absent or empty dim reduces every axis, as in PyTorch), and
// otherwise infers them with InferReduction from the first input's shape and the
// cotangent's (the output's) shape. It returns an error wrapping
// ErrInvalidArgument when neither works.
func (c *Case) ReductionAxes() (axes []int, keepdim bool, err error) {
	if len(c.Inputs) == 0 {
		return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s has no inputs", c.ID)
	}
	in := c.Inputs[0].Shape
	rank := len(in)
	if len(c.OpKwargs) > 0 {
		var kw struct {
			Dim     any  `json:"dim"`
			Keepdim bool `json:"keepdim"`
		}
		if err := c.Kwargs(&kw); err != nil {
			return nil, false, err
		}
		var dims []int
		switch d := kw.Dim.(type) {
		case nil:
		case float64:
			dims = []int{int(d)}
		case []any:
			for _, v := range d {
				f, ok := v.(float64)
				if !ok {
					return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: dim %v", c.ID, kw.Dim)
				}
				dims = append(dims, int(f))
			}
		default:
			return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: dim %v", c.ID, kw.Dim)
		}
		if len(dims) == 0 {
			for k := range rank {
				dims = append(dims, k)
			}
		}
		for _, d := range dims {
			// PyTorch lets a 0-d tensor take dim 0 or -1.
			if rank == 0 && (d == 0 || d == -1) {
				continue
			}
			if d < -rank || d >= rank {
				return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: dim %d out of range for rank %d", c.ID, d, rank)
			}
			if d < 0 {
				d += rank
			}
			if !slices.Contains(axes, d) {
				axes = append(axes, d)
			}
		}
		slices.Sort(axes)
		if axes == nil {
			axes = []int{}
		}
		return axes, kw.Keepdim, nil
	}
	if len(c.Probes) == 0 {
		return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: no probe to read the output shape from", c.ID)
	}
	out, ok := c.Probes[0].Cotangent.Get("value")
	if !ok {
		return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: probe has no output cotangent", c.ID)
	}
	axes, keepdim, ok = InferReduction(in, out.Shape)
	if !ok {
		return nil, false, cr.Errorf(cr.ErrInvalidArgument, "case %s: cannot infer a reduction from %v to %v", c.ID, in, out.Shape)
	}
	return axes, keepdim, nil
}

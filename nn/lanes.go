package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// lanes views a row-major tensor around one axis as [outer, n, inner]: element
// (o, j, k) of the view, the j-th element of lane (o, k), is at index
// (o n + j) inner + k. The scans, sorts and the class axis of the losses walk
// tensors this way.
type lanes struct{ outer, n, inner int }

// lanesOf returns the lanes of shape along axis (already in [0, len(shape))).
func lanesOf(shape []int, axis int) lanes {
	l := lanes{outer: 1, n: shape[axis], inner: 1}
	for i, d := range shape {
		switch {
		case i < axis:
			l.outer *= d
		case i > axis:
			l.inner *= d
		}
	}
	return l
}

// at returns the index of element j of lane (o, k).
func (l lanes) at(o, j, k int) int { return (o*l.n+j)*l.inner + k }

// describe returns t's dtype and shape, or "<nil>".
func describe(t *tensor.Dense) string {
	if t == nil {
		return "<nil>"
	}
	return t.Describe()
}

// checkInputs returns an error unless x holds want non-nil tensors.
func checkInputs(name string, x []*tensor.Dense, want int) error {
	if len(x) != want {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d inputs, want %d", name, len(x), want)
	}
	for k, v := range x {
		if v == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: input %d is nil", name, k)
		}
	}
	return nil
}

// checkReal returns an error unless every tensor of x is float64: for the ops whose
// mathematics orders values (sort, clamp) or that PyTorch defines on real input
// only (the losses).
func checkReal(name string, x ...*tensor.Dense) error {
	for k, v := range x {
		if v.DType() != tensor.Float64 {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: input %d is %s; the op is defined on float64 only", name, k, v.Describe())
		}
	}
	return nil
}

// normAxis maps a possibly negative axis (Python style: -1 is the last) into
// [0, rank), or returns an error naming the op.
func normAxis(name string, axis, rank int) (int, error) {
	a := axis
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d out of range for rank %d", name, axis, rank)
	}
	return a, nil
}

// float64s returns the row-major elements of a float64 tensor, aliasing its storage
// when it is contiguous: for reading only.
func float64s(t *tensor.Dense) []float64 { return t.Contiguous().Float64s() }

// complex128s returns the row-major elements of t as complex128 (a float64 tensor
// is promoted into a fresh slice): for reading only.
func complex128s(t *tensor.Dense) []complex128 { return t.AsComplex().Contiguous().Complex128s() }

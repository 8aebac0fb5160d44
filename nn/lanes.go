package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// lanes is a opkit.Lanes under the short field names that the sorts, the argmax
// family, softmax and the class axis of the losses use: outer, n and inner are
// Outer, Len and Inner, and element (o, j, k), the j-th element of lane (o, k), is at
// index (o n + j) inner + k. The scans use opkit.Lanes itself.
type lanes struct{ outer, n, inner int }

// lanesOf returns the lanes of shape along axis (already in [0, len(shape))).
func lanesOf(shape []int, axis int) lanes {
	l := lanesAlong(shape, axis)
	return lanes{outer: l.Outer, n: l.Len, inner: l.Inner}
}

// lanesAlong returns the opkit.Lanes of shape along axis (already in
// [0, len(shape))).
func lanesAlong(shape []int, axis int) opkit.Lanes {
	l, err := opkit.LanesOf(shape, axis)
	if err != nil {
		// The callers normalise the axis of a tensor's shape first.
		panic(err)
	}
	return l
}

// at returns the index of element j of lane (o, k).
func (l lanes) at(o, j, k int) int {
	return opkit.Lanes{Outer: l.outer, Len: l.n, Inner: l.inner}.Offset(o, j, k)
}

// describe returns t's dtype and shape, or "<nil>".
func describe(t *tensor.Dense) string { return opkit.DescribeOf(t) }

// checkInputs returns an error unless x holds want non-nil tensors (of any of the
// four dtypes: single precision reaches an op's checks widened, or natively where
// the op takes it, as matmul and linear do).
func checkInputs(name string, x []*tensor.Dense, want int) error {
	return opkit.CheckInputsAll(name, x, want)
}

// checkReal returns an error unless every tensor of x is real (float64, or float32
// for an op that takes single precision natively): for the ops whose mathematics
// orders values (sort, clamp) or that PyTorch defines on real input only (the
// losses).
func checkReal(name string, x ...*tensor.Dense) error {
	for k, v := range x {
		if v.DType().IsComplex() {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: input %d is %s; the op is defined on real input only (float64, float32)", name, k, v.Describe())
		}
	}
	return nil
}

// checkRealInputs returns an error unless x holds want non-nil float64 tensors:
// checkInputs, then checkReal.
func checkRealInputs(name string, x []*tensor.Dense, want int) error {
	if err := checkInputs(name, x, want); err != nil {
		return err
	}
	return checkReal(name, x...)
}

// checkRealApply is opkit.CheckApply for an op defined on float64 only: it returns
// an error unless in and x name want inputs, x's all non-nil and float64.
func checkRealApply(name string, in []cr.NodeID, x []*tensor.Dense, want int) error {
	if err := opkit.CheckApply(name, in, x, want); err != nil {
		return err
	}
	return checkReal(name, x...)
}

// normAxis maps a possibly negative axis (Python style: -1 is the last) into
// [0, rank), or returns an error naming the op.
func normAxis(name string, axis, rank int) (int, error) { return opkit.Axis(name, axis, rank) }

// float64s returns the row-major elements of a float64 tensor, aliasing its storage
// when it is contiguous: for reading only.
func float64s(t *tensor.Dense) []float64 { return t.Contiguous().Float64s() }

// complex128s returns the row-major elements of t as complex128 (a float64 tensor
// is promoted into a fresh slice): for reading only.
func complex128s(t *tensor.Dense) []complex128 { return t.AsComplex().Contiguous().Complex128s() }

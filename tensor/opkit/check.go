package opkit

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// CheckInputs returns an error wrapping cr.ErrInvalidArgument, whose message starts
// with op, unless x holds want tensors (want < 0: at least one), none of them nil,
// each of which memory could hold a copy of: the check an op's Apply makes before it
// reads its inputs. The last condition is CheckCopies: an op may read a view through
// a contiguous copy (Contiguous, Float64s, AsComplex), and on a tape each input gets
// a cotangent of its size, so a broadcast view too large to copy (BroadcastTo makes
// one of any size without allocating) is refused here rather than panicking in an
// allocation.
//
// CheckInputs also refuses inputs of a dtype the op does not support: every op
// supports tensor.Float64 and tensor.Complex128 (or refuses one of them itself, with its own
// message); tensor.Float32 and tensor.Complex64 are refused with an error wrapping
// tensor.ErrDTypeNotSupported (so cr.ErrInvalidArgument) that names op and the dtype
// (CheckDTypes). An op whose kernels and rules handle single precision calls
// CheckInputsAll instead.
func CheckInputs(op string, x []*tensor.Dense, want int) error {
	if err := checkInputs(op, x, want); err != nil {
		return err
	}
	return CheckDTypes(op, x)
}

// CheckInputsAll is CheckInputs for an op that supports all four dtypes: it
// refuses only invalid dtypes.
func CheckInputsAll(op string, x []*tensor.Dense, want int) error {
	if err := checkInputs(op, x, want); err != nil {
		return err
	}
	return CheckValidDTypes(op, x)
}

// CheckValidDTypes is CheckDTypes for an op that supports all four dtypes: it
// refuses only a tensor of an invalid dtype (the zero tensor.Dense, which is not a
// tensor), with an error wrapping tensor.ErrDTypeNotSupported.
func CheckValidDTypes(op string, x []*tensor.Dense) error {
	for k, v := range x {
		if v != nil && !v.DType().Valid() {
			return dtypeError(op, k, v)
		}
	}
	return nil
}

// CheckDTypes returns an error wrapping tensor.ErrDTypeNotSupported, naming op, the input
// and its dtype, unless every non-nil tensor of x has one of the dtypes ok (tensor.Float64
// and tensor.Complex128 when ok is empty: the dtypes every op supports). It is the dtype
// check of CheckInputs, for ops that check their inputs' count themselves.
func CheckDTypes(op string, x []*tensor.Dense, ok ...tensor.DType) error {
	for k, v := range x {
		if v == nil {
			continue
		}
		dt := v.DType()
		if len(ok) == 0 {
			if dt == tensor.Float64 || dt == tensor.Complex128 {
				continue
			}
		} else if slices.Contains(ok, dt) {
			continue
		}
		return dtypeError(op, k, v)
	}
	return nil
}

// dtypeError is the error of CheckDTypes for input k.
func dtypeError(op string, k int, v *tensor.Dense) error {
	if !v.DType().Valid() {
		return fmt.Errorf("%w: %s: input %d has invalid dtype %v", tensor.ErrDTypeNotSupported, op, k, v.DType())
	}
	return fmt.Errorf("%w: %s does not support %v yet (input %d is %s)", tensor.ErrDTypeNotSupported, op, v.DType(), k, v.Describe())
}

// checkInputs is CheckInputs without the dtype check.
func checkInputs(op string, x []*tensor.Dense, want int) error {
	if want >= 0 && len(x) != want {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d inputs, want %d", op, len(x), want)
	}
	if want < 0 && len(x) == 0 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: needs at least one input", op)
	}
	for k, v := range x {
		if v == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: input %d is nil", op, k)
		}
	}
	return CheckCopies(op, x)
}

// CheckCopies returns an error naming op and wrapping the error of tensor.CheckAlloc (so
// cr.ErrInvalidArgument) if some tensor of x is too large for memory to hold a copy
// of: a view, since every contiguous tensor already fits. Nil tensors are skipped.
func CheckCopies(op string, x []*tensor.Dense) error {
	for k, v := range x {
		if v == nil {
			continue
		}
		if err := tensor.CheckAlloc(v.DType(), v.Shape()...); err != nil {
			return fmt.Errorf("%s: input %d is a view too large to copy: %w", op, k, err)
		}
	}
	return nil
}

// CheckApply is CheckInputs for an op's Apply(in, x): it also checks that in names
// one node for each value of x.
func CheckApply(op string, in []cr.NodeID, x []*tensor.Dense, want int) error {
	if len(in) != len(x) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d NodeIDs, want %d (one per input)", op, len(in), len(x))
	}
	return CheckInputs(op, x, want)
}

// CheckApplyAll is CheckApply for an op that supports all four dtypes
// (CheckInputsAll).
func CheckApplyAll(op string, in []cr.NodeID, x []*tensor.Dense, want int) error {
	if len(in) != len(x) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d NodeIDs, want %d (one per input)", op, len(in), len(x))
	}
	return CheckInputsAll(op, x, want)
}

// DescribeOf returns t.Describe(), or "<nil>" for a nil t: for error messages about
// values that may be missing.
func DescribeOf(t *tensor.Dense) string {
	if t == nil {
		return "<nil>"
	}
	return t.Describe()
}

// CheckUnary is the check of an op with one input and an axis parameter:
// CheckInputs(op, x, 1), then Axis(op, axis, rank of x[0]). It returns the axis in
// [0, rank).
func CheckUnary(op string, x []*tensor.Dense, axis int) (int, error) {
	if err := CheckInputs(op, x, 1); err != nil {
		return 0, err
	}
	return Axis(op, axis, x[0].Rank())
}

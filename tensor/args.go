package tensor

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// CheckInputs returns an error wrapping cr.ErrInvalidArgument, whose message starts
// with op, unless x holds want tensors (want < 0: at least one), none of them nil,
// each of which memory could hold a copy of: the check an op's Apply makes before it
// reads its inputs. The last condition is CheckCopies: an op may read a view through
// a contiguous copy (Contiguous, Float64s, AsComplex), and on a tape each input gets
// a cotangent of its size, so a broadcast view too large to copy (BroadcastTo makes
// one of any size without allocating) is refused here rather than panicking in an
// allocation.
func CheckInputs(op string, x []*Dense, want int) error {
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

// CheckCopies returns an error naming op and wrapping the error of CheckAlloc (so
// cr.ErrInvalidArgument) if some tensor of x is too large for memory to hold a copy
// of: a view, since every contiguous tensor already fits. Nil tensors are skipped.
func CheckCopies(op string, x []*Dense) error {
	for k, v := range x {
		if v == nil {
			continue
		}
		if err := CheckAlloc(v.dtype, v.shape...); err != nil {
			return fmt.Errorf("%s: input %d is a view too large to copy: %w", op, k, err)
		}
	}
	return nil
}

// CheckApply is CheckInputs for an op's Apply(in, x): it also checks that in names
// one node for each value of x.
func CheckApply(op string, in []cr.NodeID, x []*Dense, want int) error {
	if len(in) != len(x) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d NodeIDs, want %d (one per input)", op, len(in), len(x))
	}
	return CheckInputs(op, x, want)
}

// DescribeOf returns t.Describe(), or "<nil>" for a nil t: for error messages about
// values that may be missing.
func DescribeOf(t *Dense) string {
	if t == nil {
		return "<nil>"
	}
	return t.Describe()
}

// CheckUnary is the check of an op with one input and an axis parameter:
// CheckInputs(op, x, 1), then Axis(op, axis, rank of x[0]). It returns the axis in
// [0, rank).
func CheckUnary(op string, x []*Dense, axis int) (int, error) {
	if err := CheckInputs(op, x, 1); err != nil {
		return 0, err
	}
	return Axis(op, axis, x[0].Rank())
}

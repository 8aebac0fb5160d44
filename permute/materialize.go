package permute

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Materialize returns a fresh contiguous row-major copy of t, whatever its strides.
//
// It is tensor.Dense.Clone under the name this package has always given it: the copy
// kernel of package tensor moves 8x8 tiles between the source's fastest axis and the
// destination's fastest axis of a permuted view (the result of Permute, Transpose or
// MoveAxis), so that every cache line of either side is read or written once, and
// a permuted view costs about as much as a plain copy. Unlike
// tensor.Dense.Contiguous it never returns t itself. A copy too large to allocate
// (a broadcast view can have any number of elements) is an error wrapping
// chainrules.ErrInvalidArgument, as is a nil t.
func Materialize(t *tensor.Dense) (*tensor.Dense, error) {
	if t == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "materialize: nil tensor")
	}
	if err := tensor.CheckAlloc(t.DType(), t.Shape()...); err != nil {
		return nil, fmt.Errorf("materialize: the copy is too large: %w", err)
	}
	return t.Clone(), nil
}

// MaterializeTo copies the elements of t into dst in row-major order: the
// destination-first form of Materialize, for callers that reuse a buffer (it is
// tensor.Copy). dst must be contiguous and of t's shape and dtype, otherwise
// MaterializeTo returns an error wrapping ErrShapeMismatch (or ErrInvalidArgument for
// a non-contiguous dst); it may share storage with t (see tensor.Copy).
func MaterializeTo(dst, t *tensor.Dense) error {
	if err := tensor.Copy(dst, t); err != nil {
		return fmt.Errorf("materialize: %w", err)
	}
	return nil
}

package ruletest

import (
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// ElementSpace is the optional extension of chainrules.Space through which the
// checker reads and builds values element by element. It is what worst-element
// reports and the jacobian check need. The checker has it built in for float64,
// complex128 and *tensor.Dense values; a Space of another value type opts in by
// implementing these two methods.
type ElementSpace[V any] interface {
	// Elements returns a fresh row-major copy of v's elements, real ones as
	// complex(x, 0).
	Elements(v V) []complex128
	// FromElements returns a new value shaped and typed like like, holding e in
	// row-major order (imaginary parts are dropped for a real dtype). It returns an
	// error if len(e) is not Size(like).
	FromElements(like V, e []complex128) (V, error)
}

// elements returns the elements of v, or false if the value type offers no access.
func elements[V any](space cr.Space[V], v V) ([]complex128, bool) {
	if es, ok := space.(ElementSpace[V]); ok {
		return es.Elements(v), true
	}
	switch x := any(v).(type) {
	case float64:
		return []complex128{complex(x, 0)}, true
	case complex128:
		return []complex128{x}, true
	case *tensor.Dense:
		if x == nil {
			return nil, false
		}
		// AsComplex may return x itself; clone so that callers own the slice.
		return slices.Clone(x.AsComplex().Complex128s()), true
	}
	return nil, false
}

// fromElements builds a value like like from e, or reports false if the value type
// offers no access.
func fromElements[V any](space cr.Space[V], like V, e []complex128) (V, bool, error) {
	var zero V
	if es, ok := space.(ElementSpace[V]); ok {
		v, err := es.FromElements(like, e)
		return v, true, err
	}
	if len(e) != space.Size(like) {
		return zero, true, cr.Errorf(cr.ErrShapeMismatch, "%d elements for %s", len(e), space.Describe(like))
	}
	var out any
	switch x := any(like).(type) {
	case float64:
		out = real(e[0])
	case complex128:
		out = e[0]
	case *tensor.Dense:
		if x == nil {
			return zero, false, nil
		}
		var err error
		if x.DType() == tensor.Complex128 {
			out, err = tensor.FromComplex128(slices.Clone(e), x.Shape()...)
		} else {
			re := make([]float64, len(e))
			for i, z := range e {
				re[i] = real(z)
			}
			out, err = tensor.FromFloat64(re, x.Shape()...)
		}
		if err != nil {
			return zero, true, err
		}
	default:
		return zero, false, nil
	}
	return out.(V), true, nil
}

// isComplex reports whether a dtype name is a complex one.
func isComplex(dtype string) bool { return strings.HasPrefix(dtype, "complex") }

// unravel returns the row-major multi-index of flat offset i in shape.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return idx
}

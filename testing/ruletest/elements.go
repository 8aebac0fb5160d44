package ruletest

import (
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// ElementSpace is the optional extension of chainrules.Space through which the
// checker reads and builds values element by element: what worst-element reports,
// the jacobian check and the imaginary directions of complex values need.
// tensor.Space implements it; the checker has it built in for plain float64 and
// complex128 values (chainrules.Float64Space), and a Space of another value type
// opts in by implementing these two methods. Element i of a value is its i-th
// element in row-major order, as a complex number
//
//	e_i = complex(x_i, 0) for a real dtype,   e_i = z_i for a complex one.
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
	var out any
	switch any(like).(type) {
	case float64:
		if len(e) != 1 {
			return zero, true, cr.Errorf(cr.ErrShapeMismatch, "%d elements for a float64", len(e))
		}
		out = real(e[0])
	case complex128:
		if len(e) != 1 {
			return zero, true, cr.Errorf(cr.ErrShapeMismatch, "%d elements for a complex128", len(e))
		}
		out = e[0]
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

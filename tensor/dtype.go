package tensor

import (
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Numeric is the constraint of the element types of all four dtypes: float64,
// complex128, float32 and complex64. (Element, the constraint of the double-precision
// kernels, is its float64 | complex128 part.)
type Numeric interface {
	float64 | complex128 | float32 | complex64
}

// AsType returns t converted to dtype dt, as PyTorch's t.to(dtype): t itself if it
// already has dtype dt, and otherwise a fresh contiguous tensor of t's shape whose
// elements are t's rounded to dt (float64 to float32 rounds to nearest even; a real
// element x becomes complex(x, 0); a complex element converted to a real dtype keeps
// its real part, as torch does, with a warning there). It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil t, an invalid dt, or a view too large to
// copy.
func AsType(t *Dense, dt DType) (*Dense, error) {
	if t == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "astype: nil tensor")
	}
	if t.dtype == dt {
		return t, nil
	}
	if err := CheckAlloc(dt, t.shape...); err != nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "astype %s to %v: %w", t.Describe(), dt, err)
	}
	return t.convert(dt), nil
}

// to returns t if it has dtype dt, and otherwise t.convert(dt).
func (t *Dense) to(dt DType) *Dense {
	if t.dtype == dt {
		return t
	}
	return t.convert(dt)
}

// convert returns a fresh contiguous tensor of dtype dt holding t's elements
// converted to dt; dt is valid and the copy fits in memory. Every element is
// written, so the storage is taken unzeroed (large storage from the buffer pool).
func (t *Dense) convert(dt DType) *Dense {
	out, err := allocNoZero(dt, t.shape...)
	if err != nil {
		panic("tensor.convert: " + err.Error())
	}
	src := t.elems()
	switch dt {
	case Float64:
		toReal(out.f64s(), src)
	case Float32:
		toReal(out.f32s(), src)
	case Complex128:
		toComplex(out.c128s(), src)
	case Complex64:
		toComplex(out.c64s(), src)
	}
	return out
}

// elems returns the elements of t in row-major order as a []float64, []complex128,
// []float32 or []complex64 (aliasing t's storage when t is contiguous).
func (t *Dense) elems() any {
	switch t.dtype {
	case Complex128:
		return rowMajor[complex128](t)
	case Float32:
		return rowMajor[float32](t)
	case Complex64:
		return rowMajor[complex64](t)
	}
	return rowMajor[float64](t)
}

// toReal writes the real parts of the elements of src (a slice of one of the four
// element types) into dst, rounded to D.
func toReal[D float32 | float64](dst []D, src any) {
	switch s := src.(type) {
	case []float64:
		for i, v := range s {
			dst[i] = D(v)
		}
	case []float32:
		for i, v := range s {
			dst[i] = D(v)
		}
	case []complex128:
		for i, v := range s {
			dst[i] = D(real(v))
		}
	case []complex64:
		for i, v := range s {
			dst[i] = D(real(v))
		}
	}
}

// toComplex writes the elements of src (a slice of one of the four element types)
// into dst as complex numbers, rounded to D.
func toComplex[D complex64 | complex128](dst []D, src any) {
	switch s := src.(type) {
	case []float64:
		for i, v := range s {
			dst[i] = D(complex(v, 0))
		}
	case []float32:
		for i, v := range s {
			dst[i] = D(complex(v, 0))
		}
	case []complex128:
		for i, v := range s {
			dst[i] = D(v)
		}
	case []complex64:
		for i, v := range s {
			dst[i] = D(v)
		}
	}
}

// ErrDTypeNotSupported is wrapped by the errors of ops given a tensor of a dtype
// they do not (yet) support: a float32 or complex64 tensor given to an op with
// float64 and complex128 kernels only. It wraps chainrules.ErrInvalidArgument.
var ErrDTypeNotSupported = fmt.Errorf("%w: dtype not supported", cr.ErrInvalidArgument)

package tensor

import cr "github.com/chainrules-go/chainrules/chainrules"

// FromSlice is FromFloat64, FromComplex128, FromFloat32 or FromComplex64, as T is:
// a tensor of the given shape and of T's dtype that holds data (it keeps the slice),
// for generic kernels over [Numeric]. A length that does not fill the shape is an
// error wrapping cr.ErrShapeMismatch.
func FromSlice[T Numeric](data []T, shape ...int) (*Dense, error) {
	n, err := ShapeSize(shape...)
	if err != nil {
		return nil, err
	}
	if len(data) != n {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%d elements do not fill shape %v (%d elements)", len(data), shape, n)
	}
	if data == nil {
		data = []T{}
	}
	t := new(Dense)
	switch d := any(data).(type) {
	case []float64:
		t.dtype, t.f64 = Float64, d
	case []complex128:
		t.dtype, t.c128 = Complex128, d
	case []float32:
		t.dtype, t.f32 = Float32, d
	case []complex64:
		t.dtype, t.c64 = Complex64, d
	}
	t.setContiguous(shape)
	return t, nil
}

// dtypeOf returns the DType whose elements have type T.
func dtypeOf[T Numeric]() DType {
	var zero T
	switch any(zero).(type) {
	case complex128:
		return Complex128
	case float32:
		return Float32
	case complex64:
		return Complex64
	}
	return Float64
}

// storage returns the backing slice of t, whose elements must have type T.
func storage[T Numeric](t *Dense) []T {
	switch t.dtype {
	case Complex128:
		return any(t.c128).([]T)
	case Float32:
		return any(t.f32).([]T)
	case Complex64:
		return any(t.c64).([]T)
	}
	return any(t.f64).([]T)
}

package tensor

import cr "github.com/chainrules-go/chainrules/chainrules"

// FromSlice is FromFloat64 or FromComplex128, as T is: a tensor of the given shape
// that holds data (it keeps the slice), for generic kernels over [Element]. A
// length that does not fill the shape is an error wrapping cr.ErrShapeMismatch.
func FromSlice[T Element](data []T, shape ...int) (*Dense, error) {
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
	}
	t.setContiguous(shape)
	return t, nil
}

// dtypeOf returns the DType whose elements have type T.
func dtypeOf[T Element]() DType {
	var zero T
	if _, ok := any(zero).(complex128); ok {
		return Complex128
	}
	return Float64
}

// storage returns the backing slice of t, whose elements must have type T.
func storage[T Element](t *Dense) []T {
	if t.dtype == Complex128 {
		return any(t.c128).([]T)
	}
	return any(t.f64).([]T)
}

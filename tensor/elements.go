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
	setData(t, data)
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

// storage returns the backing slice of t if its elements have type T, and nil
// otherwise (as f64s does).
func storage[T Numeric](t *Dense) []T {
	if t.dtype != dtypeOf[T]() {
		return nil
	}
	return dataOf[T](t)
}

package tensor

// FromSlice is FromFloat64 or FromComplex128, as T is: a tensor of the given shape
// that holds data (it keeps the slice), for generic kernels over [Element]. A
// length that does not fill the shape is an error wrapping cr.ErrShapeMismatch.
func FromSlice[T Element](data []T, shape ...int) (*Dense, error) {
	switch d := any(data).(type) {
	case []complex128:
		return FromComplex128(d, shape...)
	default:
		return FromFloat64(any(data).([]float64), shape...)
	}
}

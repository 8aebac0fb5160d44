package tensor

// Number is the type of a scalar parameter of Scale, Full and FullOf (and of
// package elementwise's ScaleOp, ShiftOp and PowScalarOp): an int, or a real or
// complex number of either precision. A real tensor takes a real number, a
// constant or a variable (Scale(x, 0.5), Scale(x, h) for a float64 h), and stays
// real; the same call works for every dtype. A complex number with a nonzero
// imaginary part promotes a real tensor to the complex dtype of its precision.
// Untyped constants take their default types (2 is an int, 0.5 a float64, 1i a
// complex128).
type Number interface {
	int | float32 | float64 | complex64 | complex128
}

// Complex128Of returns s as a complex128: exact for every float32, float64 and
// complex64, and for an int of magnitude up to 2^53.
func Complex128Of[S Number](s S) complex128 {
	switch v := any(s).(type) {
	case int:
		return complex(float64(v), 0)
	case float32:
		return complex(float64(v), 0)
	case float64:
		return complex(v, 0)
	case complex64:
		return complex128(v)
	}
	return any(s).(complex128)
}

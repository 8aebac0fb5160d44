package linalg

import (
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// scalar is the element type of the package's own kernels: the project's one
// element constraint, tensor.Element, under a short local name.
type scalar = tensor.Element

// cj returns the complex conjugate (x itself for float64).
func cj[T scalar](x T) T { return lapack.Conj(x) }

// abs returns |x|.
func abs[T scalar](x T) float64 { return lapack.Abs(x) }

// fromReal returns x as a T.
func fromReal[T scalar](x float64) T { return lapack.FromReal[T](x) }

// isCmplx reports whether T is complex128.
func isCmplx[T scalar]() bool {
	var z T
	_, ok := any(z).(complex128)
	return ok
}

// dataOf returns the elements of x in row-major order as a []T (aliasing x when it
// is contiguous; callers must not write through it). x must have dtype T.
func dataOf[T scalar](x *tensor.Dense) []T {
	var z T
	switch any(z).(type) {
	case complex128:
		return any(x.Complex128s()).([]T)
	}
	return any(x.Float64s()).([]T)
}

// newOf returns a fresh tensor of dtype T with the given data (which it keeps).
func newOf[T scalar](data []T, shape ...int) *tensor.Dense {
	t, err := tensor.FromSlice(data, shape...)
	if err != nil {
		// The callers size data from shape: a mismatch is a bug in this package.
		panic(err)
	}
	return t
}

// dtypeOf returns the tensor dtype of T.
func dtypeOf[T scalar]() tensor.DType {
	if isCmplx[T]() {
		return tensor.Complex128
	}
	return tensor.Float64
}

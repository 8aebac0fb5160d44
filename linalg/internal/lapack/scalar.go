package lapack

import (
	"math"
	"math/cmplx"

	"github.com/chainrules-go/chainrules/tensor"
)

// scalar is the element type of the generic kernels: the project's one element
// constraint, tensor.Element, under a short local name.
type scalar = tensor.Element

// Conj returns the complex conjugate (x itself for float64).
func Conj[T scalar](x T) T {
	if c, ok := any(x).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return x
}

// Abs returns |x|.
func Abs[T scalar](x T) float64 {
	switch v := any(x).(type) {
	case complex128:
		return cmplx.Abs(v)
	case float64:
		return math.Abs(v)
	}
	return 0
}

// Re returns the real part of x.
func Re[T scalar](x T) float64 {
	switch v := any(x).(type) {
	case complex128:
		return real(v)
	case float64:
		return v
	}
	return 0
}

// FromReal returns x as a T.
func FromReal[T scalar](x float64) T {
	var z T
	switch any(z).(type) {
	case complex128:
		return any(complex(x, 0)).(T)
	}
	return any(x).(T)
}

// Transpose writes the transpose of the rows×cols matrix src to dst (cols×rows),
// in 8×8 tiles so that both matrices are walked a few cache lines at a time (8
// lines of a tile of dst may fall in one cache set when rows is a power of two).
func Transpose[T scalar](dst, src []T, rows, cols int) {
	transposeTiled(dst, rows, src, cols, rows, cols, 8)
}

// transposeTiled sets dst[j*ldd+i] = src[i*lds+j] for i < rows, j < cols, a
// tile×tile block at a time.
func transposeTiled[T scalar](dst []T, ldd int, src []T, lds, rows, cols, tile int) {
	for i0 := 0; i0 < rows; i0 += tile {
		i1 := min(i0+tile, rows)
		for j0 := 0; j0 < cols; j0 += tile {
			j1 := min(j0+tile, cols)
			for i := i0; i < i1; i++ {
				for j, v := range src[i*lds+j0 : i*lds+j1] {
					dst[(j0+j)*ldd+i] = v
				}
			}
		}
	}
}

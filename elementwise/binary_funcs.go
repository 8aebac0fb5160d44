package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/chainrules-go/chainrules/tensor"
)

// Run kernels for the four arithmetic ops: the two-contiguous and one-broadcast-
// scalar cases get plain loops the compiler keeps tight; other strides fall back to a
// strided loop.

func addRun[T tensor.Numeric](dst, a []T, sa int, b []T, sb int) {
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case sa == 1 && sb == 0:
		a, s := a[:len(dst)], b[0]
		for i := range dst {
			dst[i] = a[i] + s
		}
	case sa == 0 && sb == 1:
		s, b := a[0], b[:len(dst)]
		for i := range dst {
			dst[i] = s + b[i]
		}
	default:
		for i := range dst {
			dst[i] = a[i*sa] + b[i*sb]
		}
	}
}

func subRun[T tensor.Numeric](dst, a []T, sa int, b []T, sb int) {
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case sa == 1 && sb == 0:
		a, s := a[:len(dst)], b[0]
		for i := range dst {
			dst[i] = a[i] - s
		}
	case sa == 0 && sb == 1:
		s, b := a[0], b[:len(dst)]
		for i := range dst {
			dst[i] = s - b[i]
		}
	default:
		for i := range dst {
			dst[i] = a[i*sa] - b[i*sb]
		}
	}
}

func mulRun[T tensor.Numeric](dst, a []T, sa int, b []T, sb int) {
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case sa == 1 && sb == 0:
		a, s := a[:len(dst)], b[0]
		for i := range dst {
			dst[i] = a[i] * s
		}
	case sa == 0 && sb == 1:
		s, b := a[0], b[:len(dst)]
		for i := range dst {
			dst[i] = s * b[i]
		}
	default:
		for i := range dst {
			dst[i] = a[i*sa] * b[i*sb]
		}
	}
}

func divRun[T tensor.Numeric](dst, a []T, sa int, b []T, sb int) {
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = a[i] / b[i]
		}
	case sa == 0 && sb == 1:
		s, b := a[0], b[:len(dst)]
		for i := range dst {
			dst[i] = s / b[i]
		}
	default: // x/s is not x*(1/s) in floating point, so no scalar shortcut
		for i := range dst {
			dst[i] = a[i*sa] / b[i*sb]
		}
	}
}

// Pullback runs of add, sub and mul: conj(f_a) ybar and conj(f_b) ybar without
// evaluating the partials per element.

func addPull[T tensor.Element](ga, gb, yb, _ []T, _ int, _ []T, _ int) {
	copy(ga, yb)
	copy(gb, yb)
}

func subPull[T tensor.Element](ga, gb, yb, _ []T, _ int, _ []T, _ int) {
	copy(ga, yb)
	for i, v := range yb {
		gb[i] = -v
	}
}

// mulPull is float64 only: the complex pullback needs conj(b) ybar.
func mulPull(ga, gb, yb, a []float64, sa int, b []float64, sb int) {
	mulRun(ga, yb, 1, b, sb)
	mulRun(gb, yb, 1, a, sa)
}

func addF[T tensor.Element](a, b T) T { return a + b }

func subF[T tensor.Element](a, b T) T { return a - b }

func mulF[T tensor.Element](a, b T) T { return a * b }

func divF[T tensor.Element](a, b T) T { return a / b }

func addD1[T tensor.Element](_, _, _ T) (T, T) { return 1, 1 }

func subD1[T tensor.Element](_, _, _ T) (T, T) { return 1, -1 }

func mulD1[T tensor.Element](a, b, _ T) (T, T) { return b, a }

func divD1[T tensor.Element](_, b, y T) (T, T) { return 1 / b, -y / b }

func zeroD2[T tensor.Element](_, _, _ T) (T, T, T) { return 0, 0, 0 }

func mulD2[T tensor.Element](_, _, _ T) (T, T, T) { return 0, 1, 0 }

// div: f_ab = -1/b², f_bb = 2a/b³ = 2y/b².
func divD2[T tensor.Element](_, b, y T) (T, T, T) { return 0, -1 / (b * b), 2 * y / (b * b) }

// pow: f_a = b a^(b-1), f_b = y log a; PyTorch's masks make f_a = 0 where b = 0 and
// f_b = 0 where a = 0 and Re b >= 0, so that 0 * inf never appears at those points.
// pow and log are those of the element type (math's, or cmplx's principal branches).
func powD1[T tensor.Element](pow func(a, b T) T, log func(T) T) func(a, b, y T) (T, T) {
	return func(a, b, y T) (T, T) {
		var fa, fb T
		if b != 0 {
			fa = b * pow(a, b-1)
		}
		if a != 0 || realPart(b) < 0 {
			fb = y * log(a)
		}
		return fa, fb
	}
}

// f_aa = b(b-1) a^(b-2), f_ab = a^(b-1)(1 + b log a), f_bb = y log² a, with the same
// masks as powD1.
func powD2[T tensor.Element](pow func(a, b T) T, log func(T) T) func(a, b, y T) (T, T, T) {
	return func(a, b, y T) (T, T, T) {
		var faa, fab, fbb T
		if b != 0 && b != 1 {
			faa = b * (b - 1) * pow(a, b-2)
		}
		if a != 0 || realPart(b) < 0 {
			l := log(a)
			fab = pow(a, b-1) * (1 + b*l)
			fbb = y * l * l
		} else if b == 1 {
			fab = 1 // d/db (b a^(b-1)) at a = 0, b = 1
		}
		return faa, fab, fbb
	}
}

// powSpec is pow's definition, which float_power shares.
var powSpec = BinarySpec{
	Real:    Func2[float64]{F: math.Pow, D1: powD1(math.Pow, math.Log), D2: powD2(math.Pow, math.Log)},
	Complex: Func2[complex128]{F: cmplx.Pow, D1: powD1(cmplx.Pow, cmplx.Log), D2: powD2(cmplx.Pow, cmplx.Log)}}

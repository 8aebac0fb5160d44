package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/chainrules-go/chainrules/tensor"
)

// Run kernels for the four arithmetic ops: the two-contiguous and one-broadcast-
// scalar cases get plain loops the compiler keeps tight; other strides fall back to a
// strided loop.

func addRun[T tensor.Element](dst, a []T, sa int, b []T, sb int) {
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

func subRun[T tensor.Element](dst, a []T, sa int, b []T, sb int) {
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

func mulRun[T tensor.Element](dst, a []T, sa int, b []T, sb int) {
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

func divRun[T tensor.Element](dst, a []T, sa int, b []T, sb int) {
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

func addF[T tensor.Element](a, b T) T              { return a + b }
func subF[T tensor.Element](a, b T) T              { return a - b }
func mulF[T tensor.Element](a, b T) T              { return a * b }
func divF[T tensor.Element](a, b T) T              { return a / b }
func addD1[T tensor.Element](_, _, _ T) (T, T)     { return 1, 1 }
func subD1[T tensor.Element](_, _, _ T) (T, T)     { return 1, -1 }
func mulD1[T tensor.Element](a, b, _ T) (T, T)     { return b, a }
func divD1[T tensor.Element](_, b, y T) (T, T)     { return 1 / b, -y / b }
func zeroD2[T tensor.Element](_, _, _ T) (T, T, T) { return 0, 0, 0 }
func mulD2[T tensor.Element](_, _, _ T) (T, T, T)  { return 0, 1, 0 }

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

// maximum: the larger argument gets the whole cotangent; a tie splits it evenly,
// 0.5 each (PyTorch's choice, the mean of the two one-sided derivatives); where an
// argument is NaN (y is NaN) both get it, as PyTorch's masks give.
func maximumD1(a, b, _ float64) (float64, float64) {
	switch {
	case a > b:
		return 1, 0
	case a < b:
		return 0, 1
	case a == b:
		return 0.5, 0.5
	}
	return 1, 1
}

func minimumD1(a, b, _ float64) (float64, float64) {
	switch {
	case a < b:
		return 1, 0
	case a > b:
		return 0, 1
	case a == b:
		return 0.5, 0.5
	}
	return 1, 1
}

// atan2(a, b) is the angle of b + ia: f_a = b/r², f_b = -a/r², r² = a² + b²;
// f_aa = -2ab/r⁴, f_ab = (a² - b²)/r⁴, f_bb = 2ab/r⁴. At a = b = 0 all are taken as 0
// (the choice Angle makes; PyTorch gives NaN there).
func atan2D1(a, b, _ float64) (float64, float64) {
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0
	}
	return b / r2, -a / r2
}

func atan2D2(a, b, _ float64) (float64, float64, float64) {
	r2 := a*a + b*b
	if r2 == 0 {
		return 0, 0, 0
	}
	r4 := r2 * r2
	return -2 * a * b / r4, (a*a - b*b) / r4, 2 * a * b / r4
}

// hypot: f_a = a/h, f_b = b/h; f_aa = b²/h³, f_ab = -ab/h³, f_bb = a²/h³; 0 at
// a = b = 0 (the subgradient Abs takes; PyTorch gives NaN there).
func hypotD1(a, b, h float64) (float64, float64) {
	if h == 0 {
		return 0, 0
	}
	return a / h, b / h
}

func hypotD2(a, b, h float64) (float64, float64, float64) {
	if h == 0 {
		return 0, 0, 0
	}
	h3 := h * h * h
	return b * b / h3, -a * b / h3, a * a / h3
}

// xlogy(a, b) = a log b, and 0 where a = 0 unless b is NaN (PyTorch's definition).
func xlogy(a, b float64) float64 { return xlog(math.Log, a, b) }

// f_a = log b, taken as 0 where a = 0 and b <= 0 (PyTorch's mask, which keeps the
// gradient finite at b = 0); f_b = a/b.
func xlogyD1(a, b, _ float64) (float64, float64) { return xlogD1(math.Log, a, b, b) }

// f_aa = 0, f_ab = 1/b, f_bb = -a/b².
func xlogyD2(a, b, _ float64) (float64, float64, float64) { return xlogD2(a, b) }

// xlog, xlogD1 and xlogD2 are y = a log u and its partials for u = b (xlogy) or
// u = 1 + b (xlog1py), where log(b) computes log u: y = 0 where a = 0 unless b is NaN;
// f_a = log u, taken as 0 where a = 0 and u <= 0; f_b = a/u; f_aa = 0, f_ab = 1/u,
// f_bb = -a/u².
func xlog(log func(float64) float64, a, b float64) float64 {
	if a == 0 && b == b {
		return 0
	}
	return a * log(b)
}

func xlogD1(log func(float64) float64, a, b, u float64) (float64, float64) {
	var fa float64
	if a != 0 || u > 0 || b != b {
		fa = log(b)
	}
	return fa, a / u
}

func xlogD2(a, u float64) (float64, float64, float64) { return 0, 1 / u, -a / (u * u) }

// The specs of the binary ops (ops_binary.go).
var (
	addSpec = BinarySpec{
		Real:    Func2[float64]{F: addF[float64], Run: addRun[float64], PullRun: addPull[float64], Linear: true, D1: addD1[float64], D2: zeroD2[float64]},
		Complex: Func2[complex128]{F: addF[complex128], Run: addRun[complex128], PullRun: addPull[complex128], Linear: true, D1: addD1[complex128], D2: zeroD2[complex128]},
		sum:     true}
	subSpec = BinarySpec{
		Real:    Func2[float64]{F: subF[float64], Run: subRun[float64], PullRun: subPull[float64], Linear: true, D1: subD1[float64], D2: zeroD2[float64]},
		Complex: Func2[complex128]{F: subF[complex128], Run: subRun[complex128], PullRun: subPull[complex128], Linear: true, D1: subD1[complex128], D2: zeroD2[complex128]},
		diff:    true}
	mulSpec = BinarySpec{
		Real:    Func2[float64]{F: mulF[float64], Run: mulRun[float64], PullRun: mulPull, D1: mulD1[float64], D2: mulD2[float64]},
		Complex: Func2[complex128]{F: mulF[complex128], Run: mulRun[complex128], D1: mulD1[complex128], D2: mulD2[complex128]}}
	divSpec = BinarySpec{
		Real:    Func2[float64]{F: divF[float64], Run: divRun[float64], D1: divD1[float64], D2: divD2[float64]},
		Complex: Func2[complex128]{F: divF[complex128], Run: divRun[complex128], D1: divD1[complex128], D2: divD2[complex128]}}
	powSpec = BinarySpec{
		Real:    Func2[float64]{F: math.Pow, D1: powD1(math.Pow, math.Log), D2: powD2(math.Pow, math.Log)},
		Complex: Func2[complex128]{F: cmplx.Pow, D1: powD1(cmplx.Pow, cmplx.Log), D2: powD2(cmplx.Pow, cmplx.Log)}}
	maximumSpec = BinarySpec{Real: Func2[float64]{F: math.Max, D1: maximumD1, D2: zeroD2[float64]}}
	minimumSpec = BinarySpec{Real: Func2[float64]{F: math.Min, D1: minimumD1, D2: zeroD2[float64]}}
	atan2Spec   = BinarySpec{Real: Func2[float64]{F: math.Atan2, D1: atan2D1, D2: atan2D2}}
	hypotSpec   = BinarySpec{Real: Func2[float64]{F: math.Hypot, D1: hypotD1, D2: hypotD2}}
	xlogySpec   = BinarySpec{Real: Func2[float64]{F: xlogy, D1: xlogyD1, D2: xlogyD2}}
)

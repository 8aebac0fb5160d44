package elementwise

import (
	"math"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

func negF[T tensor.Element](x T) T { return -x }

func minusOne[T tensor.Element](_, _ T) T { return -1 }

func one[T tensor.Element](_, _ T) T { return 1 }

func zero[T tensor.Element](_, _ T) T { return 0 }

func two[T tensor.Element](_, _ T) T { return 2 }

func outY[T tensor.Element](_, y T) T { return y }

func negY[T tensor.Element](_, y T) T { return -y }

func yPlus1[T tensor.Element](_, y T) T { return y + 1 }

func twoX[T tensor.Element](x, _ T) T { return 2 * x }

func squareF[T tensor.Element](x T) T { return x * x }

func recipF[T tensor.Element](x T) T { return 1 / x }

func invX[T tensor.Element](x, _ T) T { return 1 / x }

func negInvX2[T tensor.Element](x, _ T) T { return -1 / (x * x) }

func inv1pX[T tensor.Element](x, _ T) T { return 1 / (1 + x) }

func negInv1pX2[T tensor.Element](x, _ T) T { return -1 / ((1 + x) * (1 + x)) }

func sqrtD1[T tensor.Element](_, y T) T { return 0.5 / y }

func sqrtD2[T tensor.Element](x, y T) T { return -0.25 / (y * x) }

func rsqrtD1[T tensor.Element](x, y T) T { return -0.5 * y / x }

func rsqrtD2[T tensor.Element](x, y T) T { return 0.75 * y / (x * x) }

func recipD1[T tensor.Element](_, y T) T { return -y * y }

func recipD2[T tensor.Element](_, y T) T { return 2 * y * y * y }

func squarePull(dst, x, _, yb []float64) {
	x = x[:len(yb)]
	for i, v := range yb {
		dst[i] = (2 * x[i]) * v
	}
}

func negPull(dst, _, _, yb []float64) {
	for i, v := range yb {
		dst[i] = -1 * v
	}
}

func passPull(dst, _, _, yb []float64) {
	for i, v := range yb {
		dst[i] = 1 * v
	}
}

// Slice fast paths (Func1.Slice) of the cheap functions that recorded derivatives
// use most.
func squareSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v * v
	}
}

func negSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = -v
	}
}

func oneMinusSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = 1 - v
	}
}

// scaleSlice returns the fast forward of y = a x.
func scaleSlice(a float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = a * v
		}
	}
}

// shiftSlice returns the fast forward of y = x + b.
func shiftSlice(b float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = v + b
		}
	}
}

// scalePull returns the fast pullback of y = a x: a * ybar (vmath.Scale's
// vectorised product).
func scalePull(a float64) func(dst, x, y, yb []float64) {
	return func(dst, _, _, yb []float64) {
		vmath.Scale(dst[:len(yb)], yb, a)
	}
}

func negate[T tensor.Element](d func(x, y T) T) func(x, y T) T {
	return func(x, y T) T { return -d(x, y) }
}

func absF(x float64) float64 { return math.Abs(x) }

// sign is abs' with the subgradient 0 at 0 (PyTorch's sgn); NaN stays NaN.
func sign(x, _ float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// identity is y = x on float64.
var identity = Func1[float64]{F: func(x float64) float64 { return x }, D1: one[float64], D2: zero[float64]}

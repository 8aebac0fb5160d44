package elementwise

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Arithmetic variants: remainder, and add and sub with PyTorch's alpha. Python's
// reflected operators are ops with their operands swapped: a.__radd__(b),
// __rsub__, __rmul__, __rdiv__, __rpow__ and __rmod__ are Add, Sub, Mul, Div, Pow
// and Remainder at (b, a), and PyTorch's rsub(a, b, alpha) = b - alpha a is
// SubAlpha(b, a, alpha).

// RemainderOp is the op of Remainder: y = a - b floor(a/b), the remainder of a/b
// with the sign of b (PyTorch's remainder and Python's %), broadcast; NaN for b = 0.
// Its partials are PyTorch's: f_a = 1 and f_b = -floor(a/b) (the floor division of
// PyTorch's div(a, b, rounding_mode="floor")), also at the jumps where a/b is an
// integer; the second partials are 0. float64 only.
var RemainderOp = Binary("remainder", BinarySpec{Real: Func2[float64]{F: remainder, D1: remainderD1, D2: zeroD2[float64]}})

// Remainder returns a - b floor(a/b), broadcast, in a fresh tensor (RemainderOp).
func Remainder(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RemainderOp, a, b) }

// AddAlphaOp returns the op y = a + alpha b, broadcast (PyTorch's add with alpha):
// f_a = 1, f_b = alpha, second partials 0, so abar = ybar and bbar = conj(alpha)
// ybar, each summed over its broadcast axes. AddAlphaOp(1) is AddOp. A complex alpha
// (imag(alpha) != 0) needs a complex128 operand, as in PyTorch: two float64
// operands are then an error wrapping chainrules.ErrInvalidArgument. The op name is
// "add".
func AddAlphaOp(alpha complex128) cr.Op[*tensor.Dense] {
	if alpha == 1 {
		return AddOp
	}
	return Binary("add", axpbySpec(1, alpha))
}

// AddAlpha returns a + alpha b, broadcast, in a fresh tensor (AddAlphaOp(alpha)).
func AddAlpha(a, b *tensor.Dense, alpha complex128) (*tensor.Dense, error) {
	return cr.Eval(AddAlphaOp(alpha), a, b)
}

// SubAlphaOp returns the op y = a - alpha b, broadcast (PyTorch's sub with alpha):
// f_a = 1, f_b = -alpha, second partials 0. SubAlphaOp(1) is SubOp; complex alpha
// as in AddAlphaOp. The op name is "sub".
func SubAlphaOp(alpha complex128) cr.Op[*tensor.Dense] {
	if alpha == 1 {
		return SubOp
	}
	return Binary("sub", axpbySpec(-1, alpha))
}

// SubAlpha returns a - alpha b, broadcast, in a fresh tensor (SubAlphaOp(alpha)).
func SubAlpha(a, b *tensor.Dense, alpha complex128) (*tensor.Dense, error) {
	return cr.Eval(SubAlphaOp(alpha), a, b)
}

// axpbySpec is y = a + s alpha b with s = ±1 (y = a - alpha b is computed so, not
// as a + (-alpha) b, which PyTorch's sub also gives: negation is exact).
func axpbySpec(s float64, alpha complex128) BinarySpec {
	cb := complex(s, 0) * alpha
	spec := BinarySpec{Complex: axpby(s, alpha, cb), VJP: axpbyVJP(cb)}
	if imag(alpha) == 0 {
		spec.Real = axpby(s, real(alpha), real(cb))
	}
	return spec
}

// axpby is y = a + s alpha b on the element type of alpha, with f_b = cb = s alpha.
func axpby[T tensor.Element](s float64, alpha, cb T) Func2[T] {
	return Func2[T]{
		F: func(a, b T) T {
			if s < 0 {
				return a - alpha*b
			}
			return a + alpha*b
		},
		D1: func(_, _, _ T) (T, T) { return 1, cb },
		// A literal rather than zeroD2[T], which generic code would call through a
		// wrapper.
		D2:     func(_, _, _ T) (T, T, T) { return 0, 0, 0 },
		Linear: true}
}

// remainder is PyTorch's: math.Mod (C's fmod, the sign of a) moved into the sign of b.
func remainder(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// remainderD1 is (1, -floorDiv(a, b)).
func remainderD1(a, b, _ float64) (float64, float64) { return 1, -floorDiv(a, b) }

// floorDiv is floor(a/b) computed as PyTorch's div(a, b, rounding_mode="floor")
// computes it (after CPython's float floor division): from (a - fmod(a, b))/b, which
// is an integer up to rounding, so that a/b rounding up to an integer does not move
// the result; a/b itself for b = 0.
func floorDiv(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	m := math.Mod(a, b)
	d := (a - m) / b
	if m != 0 && (b < 0) != (m < 0) {
		d--
	}
	if d == 0 {
		return math.Copysign(0, a/b)
	}
	f := math.Floor(d)
	if d-f > 0.5 {
		f++
	}
	return f
}
